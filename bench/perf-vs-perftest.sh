#!/bin/bash
# bench/perf-vs-perftest.sh [ROUNDS]: fabscope's pairwise tests against perftest
# in the Soft-RoCE VM, in the same run, between the same two hosts:
#   WRITE bandwidth (64K)       fabscope perf run --test write -D 5s vs ib_write_bw -D 5
#     (perftest measures the middle second of its 5, after a 2 s margin;
#      fabscope measures 5 s after a 1 s warm-up: both a steady state)
#   WRITE latency (2 B, 2000)   fabscope perf run --latency --test write  vs ib_write_lat -n 2000
#   SEND latency (2 B, 2000)    fabscope perf run --latency --test send   vs ib_send_lat -n 2000
# Each pair of measurements alternates which tool goes first, ROUNDS times
# (default 3); the medians are compared. The VM is CPU-bound (software
# emulation): only ratios inside one run mean anything.
# Goals: bandwidth >= 0.95 of perftest's, median latency <= 1.10 of perftest's.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
fabscope=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
[ -x "$fabscope" ] || { echo "build first (scripts/build)" >&2; exit 3; }
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cat > "$work/guest.sh" <<EOF
F=\$(guest_path $fabscope)
ROUNDS=$rounds
EOF
cat >> "$work/guest.sh" <<'EOF'
rxe_init
rxe_bridge 2
in_host h2 $F perf serve -q --allow 10.0.0.0/24 --port 18600 &   # perftest uses 18515
sleep 1
# perftest: server on h2, client on h1; -x 1 is the RoCE v2 IPv4 GID on rxe, as fabscope picks.
perftest() {
    local tool=$1; shift
    in_host h2 timeout 120 $tool -d rxe_h2 -x 1 -F "$@" > /dev/null 2>&1 &
    local srv=$!
    sleep 1
    in_host h1 timeout 120 $tool -d rxe_h1 -x 1 -F "$@" 10.0.0.2 > pt.out 2>&1
    wait $srv || true
}
# perftest reports MiB/s (2^20 bytes), fabscope MB/s (10^6): compare in MB/s.
bw_perftest() { perftest ib_write_bw -D 5 -s 65536; awk '/^ 65536/ {printf "%.2f\n", $4 * 1.048576}' pt.out; }
lat_perftest() { perftest "$1" -n 2000 -s 2; awk '/^ 2 / {print $5}' pt.out; }               # t_typical (median) us
bw_fabscope() { in_host h1 $F perf run 10.0.0.2:18600 --test write -D 5s -q --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["bandwidth"]["avg_MBps"])'; }
lat_fabscope() { in_host h1 $F perf run 10.0.0.2:18600 --latency --test "$1" -n 2000 -q --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["latency_us"]["median"])'; }
for r in $(seq 1 $ROUNDS); do
    if [ $((r % 2)) = 1 ]; then
        echo "bw perftest $(bw_perftest)"; echo "bw fabscope $(bw_fabscope)"
        echo "write_lat perftest $(lat_perftest ib_write_lat)"; echo "write_lat fabscope $(lat_fabscope write)"
        echo "send_lat perftest $(lat_perftest ib_send_lat)"; echo "send_lat fabscope $(lat_fabscope send)"
    else
        echo "bw fabscope $(bw_fabscope)"; echo "bw perftest $(bw_perftest)"
        echo "write_lat fabscope $(lat_fabscope write)"; echo "write_lat perftest $(lat_perftest ib_write_lat)"
        echo "send_lat fabscope $(lat_fabscope send)"; echo "send_lat perftest $(lat_perftest ib_send_lat)"
    fi
done > figures.txt
kill %1 || true
EOF
lab/rxe/vm -o "$work/run" "$work/guest.sh" >/dev/null 2>&1 || { cat "$work/run/output.log"; exit 1; }
python3 - "$work/run/figures.txt" "$rounds" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    test, tool, value = line.split()
    rows.setdefault((test, tool), []).append(float(value))
print(f"== Soft-RoCE VM, h1 -> h2, {sys.argv[2]} rounds each, medians")
for test, unit, better, goal in [("bw", "MB/s", "higher", 0.95), ("write_lat", "us", "lower", 1.10), ("send_lat", "us", "lower", 1.10)]:
    f = statistics.median(rows[(test, "fabscope")]); p = statistics.median(rows[(test, "perftest")])
    ratio = f / p
    ok = ratio >= goal if better == "higher" else ratio <= goal
    print(f"  {test:10s} fabscope {f:9.2f} {unit:5s} perftest {p:9.2f} {unit:5s} ratio {ratio:5.2f}"
          f"  (goal {'>=' if better == 'higher' else '<='} {goal:.2f}: {'met' if ok else 'NOT met'})")
    print(f"  {'':10s} fabscope runs {rows[(test, 'fabscope')]}  perftest runs {rows[(test, 'perftest')]}")
PY
