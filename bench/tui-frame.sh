#!/bin/bash
# bench/tui-frame.sh: CPU per TUI frame on the 2,048-host lab (32 spines x 64
# leaves x 32 hosts; goal: under 50 ms a frame), beside what iblinkinfo takes
# to print the same fabric's links once. Two sweeps a few seconds apart, with a
# link down, a link at 1X and symbol errors in between, feed
# build/bench/tui_frame_bench (Google Benchmark).
# Usage: bench/tui-frame.sh [SPINES LEAVES HOSTS_PER_LEAF]
set -euo pipefail
cd "$(dirname "$0")/.."
FABSCOPE=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
BENCH=$(readlink -f "${BENCH:-build/bench/tui_frame_bench}")
shape=(--spines "${1:-32}" --leaves "${2:-64}" --hosts-per-leaf "${3:-32}")
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
lab="$work/lab"
trap '"$FABSCOPE" lab down --dir "$lab" -q 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
"$FABSCOPE" lab up --dir "$lab" -q "${shape[@]}"
X() { "$FABSCOPE" lab exec --direct --dir "$lab" -- "$@"; }
X "$FABSCOPE" sweep -q --no-routes -o "$work/r1.json"
"$FABSCOPE" lab fault --dir "$lab" -q link-down 'leaf02[33]' >/dev/null
"$FABSCOPE" lab fault --dir "$lab" -q width 'leaf03[2]' 1x >/dev/null
"$FABSCOPE" lab fault --dir "$lab" -q counter 'leaf01[33]' SymbolErrorCounter=40 PortXmitWait=4000000 >/dev/null
sleep 2
X "$FABSCOPE" sweep -q --no-routes -o "$work/r2.json"
X /usr/bin/time -f '%e %U %S %M' -o "$work/t" iblinkinfo >/dev/null 2>&1 || true
read -r psecs puser psys pkb < "$work/t"
/usr/bin/time -f '%e %U %S %M' -o "$work/t2" "$FABSCOPE" tui --load "$work/r1.json" --load "$work/r2.json" \
    --dump all --size 200x60 >/dev/null
read -r fsecs fuser fsys fkb < "$work/t2"

echo "== TUI frame CPU, ${shape[*]}"
"$BENCH" --benchmark_format=json "$work/r1.json" "$work/r2.json" 2> "$work/bench.err" > "$work/bench.json"
echo "  $(cat "$work/bench.err")"
python3 - "$work/bench.json" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    what = ("one frame, " if b["name"].startswith("frame") else "") + b.get("label", "")
    print(f"  {what:52s} {b['cpu_time']:9.2f} ms CPU  (goal < 50 ms)" if b["name"].startswith("frame")
          else f"  {'folding ' + what + ' in (poller thread)':52s} {b['cpu_time']:9.2f} ms CPU")
PY
printf '  %-52s %9.2f s  CPU %.2f s  %6.1f MB\n' "fabscope tui --load x2 --dump all (5 views, 200x60)" "$fsecs" \
    "$(echo "$fuser + $fsys" | bc -l)" "$(echo "$fkb/1024" | bc -l)"
printf '  %-52s %9.2f s  CPU %.2f s  %6.1f MB\n' "iblinkinfo (peer: every link, printed once)" "$psecs" \
    "$(echo "$puser + $psys" | bc -l)" "$(echo "$pkb/1024" | bc -l)"
