#!/bin/bash
# bench/exporter-scrape.sh [648] [2048] [4096]
# What `fabscope exporter` serves on a simulated lab of each size, with the
# default per-port metric groups (link,errors,traffic) and with --metrics all:
# series (samples) on /metrics, its size, the median time of a scrape (curl,
# RUNS of them, while the exporter keeps sweeping), how long a sweep takes
# against its default 30 s interval, and the exporter's peak memory.
# There is no peer to set beside it here: node_exporter's infiniband collector
# reads the local HCA's ports only, and the fabric-wide exporters are not
# packaged for Debian; the figures are for the issue's bound (a default a
# Prometheus serves comfortably).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lab-sizes.sh
FABSCOPE=${FABSCOPE:-build/cli/fabscope}
RUNS=${RUNS:-5}
PORT=${PORT:-19775}
SIZES=("${@:-648 4096}")
[ -x "$FABSCOPE" ] || { echo "build first (scripts/build)" >&2; exit 3; }
command -v curl >/dev/null || { echo "curl is needed" >&2; exit 3; }
FABSCOPE=$(readlink -f "$FABSCOPE")
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
lab="$work/lab"
exporter=""  # the `lab exec` wrapper this script started
xpid=""      # the exporter, its child
stop_exporter() {
    [ -n "$exporter" ] || return 0
    [ -n "$xpid" ] && kill -TERM "$xpid" 2>/dev/null || true
    kill -TERM "$exporter" 2>/dev/null || true
    wait "$exporter" 2>/dev/null || true
    exporter="" xpid=""
}
cleanup() { stop_exporter; "$FABSCOPE" lab down --dir "$lab" -q 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
url=http://127.0.0.1:$PORT/metrics
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure SIZE GROUPS: one line of figures
measure() {
    local size=$1 groups=$2 i t0 t1 times=""
    "$FABSCOPE" lab exec --dir "$lab" -- "$FABSCOPE" exporter -q --listen "127.0.0.1:$PORT" \
        --metrics "$groups" > "$work/exporter.log" 2>&1 &
    exporter=$!
    for i in $(seq 1 100); do xpid=$(pgrep -P "$exporter" | head -1 || true); [ -n "$xpid" ] && break; sleep 0.05; done
    # The first sweep served: its duration is on /metrics.
    for i in $(seq 1 600); do
        curl -sf "$url" -o "$work/m.txt" 2>/dev/null && grep -q '^fabscope_sweep_duration_seconds ' "$work/m.txt" && break
        kill -0 "$exporter" 2>/dev/null || { cat "$work/exporter.log" >&2; exit 1; }
        sleep 0.2
    done
    for i in $(seq 1 "$RUNS"); do
        t0=$(date +%s.%N)
        curl -sf "$url" -o "$work/m.txt"
        t1=$(date +%s.%N)
        times+="$(echo "$t1 - $t0" | bc -l)"$'\n'
    done
    local series bytes sweep rss
    series=$(grep -vc '^#' "$work/m.txt")
    bytes=$(stat -c %s "$work/m.txt")
    sweep=$(sed -n 's/^fabscope_sweep_duration_seconds //p' "$work/m.txt")
    rss=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$xpid/status")
    stop_exporter
    printf '%-6s %-26s %9s series %7.1f MB  scrape %6.3f s  sweep %6.2f s  peak RSS %6.1f MB\n' \
        "$size" "$groups" "$series" "$(echo "$bytes / 1000000" | bc -l)" \
        "$(printf '%s' "$times" | median)" "$sweep" "$(echo "$rss / 1024" | bc -l)"
}

echo "fabscope exporter, $RUNS scrapes each (median), per-port groups as --metrics names them:"
for size in "${SIZES[@]}"; do
    lab_shape "$size"
    "$FABSCOPE" lab up --dir "$lab" -q "${args[@]}"
    for groups in default all; do measure "$size" "$groups"; done
    "$FABSCOPE" lab down --dir "$lab" -q
done
