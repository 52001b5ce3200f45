#!/usr/bin/env bash
# Runs every fuzz target for RUNS executions (default 3,000,000) from the committed seed corpus.
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-3000000}"
TARGETS="${*:-tlp flit dllp portals soft_portals collective}"
for t in $TARGETS; do
  mkdir -p "fuzz/corpus/$t"
  cp -n fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
  cargo +nightly fuzz run --fuzz-dir fuzz "$t" "fuzz/corpus/$t" -- -runs="$RUNS" -max_len=4200 -print_final_stats=1 2>&1 | tail -n 12
done
