#!/usr/bin/env bash
# Measures the wall-time ratio of `inswitch cosim --jobs 1` to `--jobs 2` (issue 13: >= 1.7x on two
# free cores) and prints it with the load average before each run. Speed is recorded in
# docs/performance.md as a ratio; on a shared machine the load average says how much the figure is
# worth: re-measure on a quiet machine (load average well below 1).
#
# Usage: bash scripts/measure-jobs.sh [CYCLES] [SEEDS]   (defaults 200000 and 2: 26 jobs)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${1:-200000}
seeds=${2:-2}
cargo build --release -q
bin=target/release/inswitch
run() {
    local jobs=$1 start end
    echo "load before --jobs $jobs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    start=$(date +%s.%N)
    "$bin" cosim --block all --seeds "$seeds" --cycles "$cycles" --jobs "$jobs" --quiet >/dev/null
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }' 
}
one=$(run 1)
two=$(run 2)
echo "cosim --block all --seeds $seeds --cycles $cycles: --jobs 1 ${one} s, --jobs 2 ${two} s, ratio $(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.2f", a / b }')x (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
