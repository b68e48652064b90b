#!/bin/bash
# bench/health.sh: wall time of `fabscope health` (goal: well under a second;
# it is a Slurm HealthCheckProgram), over RUNS runs on a fixture sysfs tree
# (default the healthy two-port host of tests/fixtures/host), with its state
# file read and written each run as in production. Prints min, median, mean
# and max in milliseconds.
# Usage: bench/health.sh [RUNS] [TREE]
set -euo pipefail
cd "$(dirname "$0")/.."
FABSCOPE=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
runs=${1:-50}
tree=$(readlink -f "${2:-tests/fixtures/host/healthy}")
work=$(mktemp -d /tmp/fabscope-bench-health.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
for _ in $(seq 1 "$runs"); do
    s=$(date +%s%N)
    "$FABSCOPE" health --sysfs-root "$tree" --state "$work/state.json" -q >/dev/null || true
    e=$(date +%s%N)
    echo $(((e - s) / 1000))
done >"$work/us"
sort -n "$work/us" | awk -v runs="$runs" -v tree="$tree" '
    { v[NR] = $1; sum += $1 }
    END {
        printf "fabscope health, %d runs on %s\n", runs, tree
        printf "wall ms: min %.1f  median %.1f  mean %.1f  max %.1f\n",
            v[1] / 1000, v[int((NR + 1) / 2)] / 1000, sum / NR / 1000, v[NR] / 1000
    }'
