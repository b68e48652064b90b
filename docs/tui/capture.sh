#!/bin/bash
# docs/tui/capture.sh: the text captures of every `fabscope tui` view in
# docs/tui/, taken on the 648-host lab (18 spines x 36 leaves x 18 hosts).
#
# Two sweeps a few seconds apart; between them a leaf-spine cable comes out,
# a host cable trains at 1X, another at EDR, and one uplink gathers symbol
# errors and transmit wait. The pair matrix needs an RDMA data path, which
# the IB simulator does not have: its perf results are measured in the
# Soft-RoCE VM (4 hosts, the switch port to h4 shaped to 100 Mb/s), every
# host against every other, and the capture says so.
# Usage: docs/tui/capture.sh [--no-vm]   (--no-vm keeps the pairs capture as it is)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(pwd)/docs/tui
FABSCOPE=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
work=$(mktemp -d /tmp/fabscope-capture.XXXXXX)
lab="$work/lab"
trap '"$FABSCOPE" lab down --dir "$lab" -q 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM

"$FABSCOPE" lab up --dir "$lab" -q --spines 18 --leaves 36 --hosts-per-leaf 18
X() { "$FABSCOPE" lab exec --direct --dir "$lab" -- "$@"; }
X "$FABSCOPE" sweep -q --no-routes -o "$work/r1.json"
"$FABSCOPE" lab fault --dir "$lab" -q link-down 'leaf07[19]'
"$FABSCOPE" lab fault --dir "$lab" -q width 'leaf12[3]' 1x
"$FABSCOPE" lab fault --dir "$lab" -q speed 'leaf30[11]' edr
"$FABSCOPE" lab fault --dir "$lab" -q counter 'leaf02[25]' SymbolErrorCounter=40 PortXmitWait=2000000000
sleep 2
X "$FABSCOPE" sweep -q --no-routes -o "$work/r2.json"

tui() { "$FABSCOPE" tui --load "$work/r1.json" --load "$work/r2.json" --size 100x32 "$@"; }
header() {
    echo "# fabscope tui --dump $1 --size 100x32, 648-host lab (ibsim), $(date -u +%Y-%m-%d)"
    echo "# $2"
}
what="sweeps 2 s apart; between them leaf07[19] unplugged, leaf12[3] at 1X, leaf30[11] at EDR, symbol errors and xmit wait on leaf02[25]"
for v in fabric links counters findings help; do
    { header "$v" "$what"; tui --dump "$v"; } > "$out/$v.txt"
done
{ header "links --filter leaf07" "$what"; tui --dump links --filter leaf07; } > "$out/links-filter.txt"
{ header "fabric --filter leaf12" "$what"; tui --dump fabric --filter leaf12; } > "$out/fabric-filter.txt"

[ "${1:-}" = --no-vm ] && exit 0
# The pair matrix: measured in the Soft-RoCE VM.
cat > "$work/guest.sh" <<EOF
F=\$(guest_path $FABSCOPE)
EOF
cat >> "$work/guest.sh" <<'EOF'
rxe_init
rxe_bridge 4
for h in h1 h2 h3 h4; do in_host $h $F perf serve -q --allow 10.0.0.0/24 & done
impair h4 tbf rate 100mbit burst 32kbit latency 400ms
sleep 1
for i in 1 2 3 4; do
    peers=$(for j in 1 2 3 4; do [ $i = $j ] || printf '10.0.0.%s ' $j; done)
    in_host h$i $F perf run $peers -D 2s -q -o h$i.json || true   # into the run directory
done
EOF
lab/rxe/vm -o "$work/vm" "$work/guest.sh" > /dev/null 2>&1 || { cat "$work/vm/output.log"; exit 1; }
{
    header pairs "$what"
    echo "# the pair matrix: write_bw 64K measured between 4 Soft-RoCE hosts in the VM lab (lab/rxe), every"
    echo "# host to every other, the switch port to h4 shaped to 100 Mb/s (the IB simulator has no data path)"
    tui --perf "$work/vm/h1.json" --perf "$work/vm/h2.json" --perf "$work/vm/h3.json" --perf "$work/vm/h4.json" --dump pairs
} > "$out/pairs.txt"
