#!/bin/bash
# bench/discover-vs-ibnetdiscover.sh [SIZES...]
# Topology discovery, fabscope against ibnetdiscover, on the same simulated lab
# in the same run: wall time (median of RUNS) and peak RSS, side by side.
# SIZES: 648 (18 spines x 36 leaves x 18 hosts), 2048 (32 x 64 x 32) and/or
# 4096 (32 x 128 x 32). Peak memory's goal: at most 1.5x ibnetdiscover's.
# Also sweeps fabscope's --window (alias --outstanding-smps; default 64) over 1..128.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lab-sizes.sh
FABSCOPE=${FABSCOPE:-build/cli/fabscope}
RUNS=${RUNS:-5}
SIZES=("${@:-648 2048 4096}")
[ -x "$FABSCOPE" ] || { echo "build first (scripts/build)" >&2; exit 3; }
FABSCOPE=$(readlink -f "$FABSCOPE")
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
lab="$work/lab"
cleanup() { "$FABSCOPE" lab down --dir "$lab" -q 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
# The simulator's client library writes ./sys-PID for every tool it runs:
# here, not in the checkout (lab exec removes its own child's; a tool under
# /usr/bin/time is a grandchild, whose tree the work directory's removal takes).
cd "$work"

# measure LABEL CMD...: runs CMD RUNS times inside the lab, prints median s and max RSS MB
measure() {
    local label=$1; shift
    local times=() rss=0
    for _ in $(seq "$RUNS"); do
        "$FABSCOPE" lab exec --direct --dir "$lab" -- /usr/bin/time -f '%e %M' -o "$work/t" "$@" >/dev/null 2>"$work/err" ||
            { echo "$label failed:"; cat "$work/err"; exit 1; }
        read -r t m < "$work/t"
        times+=("$t"); [ "$m" -gt "$rss" ] && rss=$m
    done
    local med
    med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '  %-44s %8.3f s %8.1f MB\n' "$label" "$med" "$(echo "$rss/1024" | bc -l)"
    echo "$med" > "$work/last"
    echo "$rss" > "$work/last_rss"
}

SUMMARY=()
for size in ${SIZES[@]}; do
    lab_shape "$size"
    "$FABSCOPE" lab up --dir "$lab" -q "${args[@]}"
    echo "== $size hosts ($(grep -c '^Switch' "$lab/net") switches), median of $RUNS runs, peak RSS"
    measure "ibnetdiscover" ibnetdiscover; peer=$(cat "$work/last"); peer_rss=$(cat "$work/last_rss")
    measure "ibnetdiscover --outstanding_smps 16" ibnetdiscover --outstanding_smps 16
    measure "fabscope discover (default)" "$FABSCOPE" discover -q -o "$work/snap.json"; ours=$(cat "$work/last"); ours_rss=$(cat "$work/last_rss")
    printf '  %-44s %8.2f\n' "time ratio fabscope/ibnetdiscover" "$(echo "$ours/$peer" | bc -l)"
    printf '  %-44s %8.2f  (goal: at most 1.50)\n' "peak memory ratio fabscope/ibnetdiscover" "$(echo "$ours_rss/$peer_rss" | bc -l)"
    SUMMARY+=("$(printf '%6s %8.1f %8.1f %6.2f' "$size" "$(echo "$peer_rss/1024" | bc -l)" "$(echo "$ours_rss/1024" | bc -l)" "$(echo "$ours_rss/$peer_rss" | bc -l)")")
    for w in 1 2 4 8 16 32 64 128; do
        measure "fabscope discover --outstanding-smps $w" "$FABSCOPE" discover -q --outstanding-smps "$w" -o "$work/snap.json"
    done
    "$FABSCOPE" lab down --dir "$lab" -q
done
echo "== Peak memory side by side, MB (goal: ratio at most 1.50)"
printf '%6s %8s %8s %6s\n' hosts ibnetdis fabscope ratio
printf '%s\n' "${SUMMARY[@]}"
