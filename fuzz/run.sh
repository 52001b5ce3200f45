#!/usr/bin/env bash
# A long campaign: every target (or the ones named) one after the other, each for PER_TARGET seconds
# (default 600), on the stable toolchain through scripts/fuzz; the working corpus grows in
# fuzz/corpus/<target> (gitignored) and each target's libFuzzer log is fuzz/logs/<target>.log (the final
# stats are at its end). Afterwards `bash scripts/fuzz <target> --cmin` folds the corpus into the
# committed fuzz/seeds/<target>. One target at a time: the differential targets are CPU-bound.
#   PER_TARGET=3600 fuzz/run.sh [target...]
set -euo pipefail
cd "$(dirname "$0")/.."
PER_TARGET="${PER_TARGET:-600}"
TARGETS="${*:-$(bash scripts/fuzz --list | grep -v planted)}"
status=0
for t in $TARGETS; do
    bash scripts/fuzz "$t" --seconds "$PER_TARGET" || status=1
done
exit $status
