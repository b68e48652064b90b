#!/bin/bash
# bench/plan-diff.sh: plan diff and validate-with-a-plan on leaf-spine plans of
# 1,024, 4,096 and 16,384 hosts (128 leaves, 32 spines), with the figures from
# before plan diff was made linear for comparison. Runs build/bench/plan_diff_bench
# (Google Benchmark); linear time grows about 4x a step.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=$(readlink -f "${BENCH:-build/bench/plan_diff_bench}")
cat <<'BEFORE'
== before (quadratic; 2-core VM, RelWithDebInfo)
BM_PlanDiff/128 (16,384 hosts, plan --from)          204 ms
BM_PlanDiffByName/128 (names resolved by description) 491 ms
BM_PlanDiffHalfTheHostsMissing/32 (4,096 hosts)       135 ms
BM_PlanDiffHalfTheHostsMissing/128 (16,384 hosts)    1566 ms
BM_ValidatePlanAndBaseline/128                        647 ms
BEFORE
echo "== now"
"$BENCH" --benchmark_min_time=0.05 "$@"
