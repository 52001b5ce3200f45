#!/usr/bin/env bash
# Co-simulation regression as a SLURM job array (docs/verification.md §Regression at scale): array task
# K of N runs `inswitch cosim --shard K/N`; the N shards are disjoint and together the whole target x
# seed list, so the array runs everything once. A copyable example:
#
#   cargo build --release                       # once, on a shared file system
#   sbatch --array=1-16 scripts/slurm-cosim.sh  # 16 shards
#   SEEDS=256 CYCLES=2000000 sbatch --array=1-64 scripts/slurm-cosim.sh
#
# Each task writes results/junit-<K>.xml (one testcase per target x seed) and results/cosim-<K>.json,
# failure waveforms under results/waves-<K>/. Exit status of a task: 0 all matched, 1 a mismatch or
# scoreboard failure, 2 a usage or build error (the array's failed tasks are the shards to look at).
#SBATCH --job-name=inswitch-cosim
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=results/slurm-%A_%a.out
set -euo pipefail
cd "${SLURM_SUBMIT_DIR:-$(dirname "$0")/..}"

: "${SLURM_ARRAY_TASK_ID:?run under sbatch --array=1-N (array task ids start at 1)}"
count="${SLURM_ARRAY_TASK_COUNT:-${SLURM_ARRAY_TASK_MAX:?}}"
shard="${SLURM_ARRAY_TASK_ID}/${count}"
seeds="${SEEDS:-64}"
cycles="${CYCLES:-1000000}"
bin="${INSWITCH:-./target/release/inswitch}"
mkdir -p results

args=(cosim --block "${BLOCK:-all}" --cycles "$cycles" --shard "$shard" --keep-going --quiet
      --jobs "${SLURM_CPUS_PER_TASK:-1}" --wave-dir "results/waves-${SLURM_ARRAY_TASK_ID}"
      --junit "results/junit-${SLURM_ARRAY_TASK_ID}.xml")
if [ -n "${SEEDS_FILE:-}" ]; then
    args+=(--seeds-file "$SEEDS_FILE")
else
    args+=(--seeds "$seeds" --seed "${FIRST_SEED:-1}")
fi
echo "inswitch-cosim: shard $shard: $bin ${args[*]}"
status=0
"$bin" "${args[@]}" --json > "results/cosim-${SLURM_ARRAY_TASK_ID}.json" || status=$?
exit "$status"
