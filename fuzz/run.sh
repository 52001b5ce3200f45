#!/usr/bin/env bash
# Runs fuzz targets from the committed seed corpus and keeps each target's libFuzzer log in
# fuzz/logs/<target>.log (gitignored with the corpus; the final stats are at its end).
#   RUNS=3000000 fuzz/run.sh [target...]        executions per target (default 3,000,000)
#   SANITIZER=none                              default: address (ASan); `none` is ~3x faster
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-3000000}"
SANITIZER="${SANITIZER:-address}"
TARGETS="${*:-tlp flit dllp portals soft_portals collective}"
mkdir -p fuzz/logs
for t in $TARGETS; do
  mkdir -p "fuzz/corpus/$t"
  cp -n fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
  cargo +nightly fuzz run -s "$SANITIZER" --fuzz-dir fuzz "$t" "fuzz/corpus/$t" -- \
    -runs="$RUNS" -max_len=4200 -print_final_stats=1 > "fuzz/logs/$t.log" 2>&1
  echo "$t: $(grep -E 'number_of_executed_units|average_exec_per_sec' "fuzz/logs/$t.log" | tr '\n' ' ')"
done
