#!/bin/bash
# bench/mesh-plan-labs.sh: the `cover` pattern on the 648- and 2,048-host lab
# fabrics, routed by the lab's own OpenSM: rounds, lanes crossed, flows, plan
# time and peak memory, beside all-pairs' rounds; and a sample of the planned
# flows walked by ibtracert on the same lab (every hop's ports and node must
# match). A mesh run with --load plans exactly this on the ranks that join.
# Then build/bench/mesh_plan_bench localizes on the swept snapshots: k = 1..5
# degraded lanes at random, +-10 % noise, 1 % flaky flows, TRIALS each.
#
#   bench/mesh-plan-labs.sh [SIZES] [SAMPLE] [TRIALS]    e.g. bench/mesh-plan-labs.sh "648 2048" 100 10
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-648 2048}
sample=${2:-100}
trials=${3:-10}
[ "$sample" -ge 0 ] 2>/dev/null || { echo "SAMPLE must be a whole number" >&2; exit 2; }
FABSCOPE=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
BENCH=$(readlink -f "${MESH_PLAN_BENCH:-build/bench/mesh_plan_bench}")
[ -x "$FABSCOPE" ] && [ -x "$BENCH" ] || { echo "build first (scripts/build)" >&2; exit 3; }
. bench/lab-sizes.sh
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
lab="$work/lab"
# Only the lab this script started is taken down.
trap '[ -e "$lab" ] && "$FABSCOPE" lab down --dir "$lab" -q 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work"
X() { "$FABSCOPE" lab exec --direct --dir "$lab" -- "$@"; }
loads=()
for size in $sizes; do
    lab_shape "$size"
    "$FABSCOPE" lab up --dir "$lab" -q "${args[@]}"
    X "$FABSCOPE" sweep -q -o snap.json
    /usr/bin/time -f '%e %M' -o t "$FABSCOPE" mesh plan --load snap.json --json >plan.json 2>plan.txt
    read -r secs kb <t
    "$FABSCOPE" mesh plan --load snap.json --pattern all-pairs --json --no-paths >all.json 2>/dev/null
    # The sample: flows spread over the plan, ibtracert from the source's LID.
    python3 - "$sample" >sample.txt <<'EOF'
import json, sys
plan = json.load(open("plan.json"))
lid = {e["name"]: e["lid"] for e in plan["endpoints"]}
flows = [f for r in plan["rounds"] for t in r["tests"] for f in t["flows"]]
n = int(sys.argv[1])
step = max(1, len(flows) // n) if n else len(flows) + 1
for i, f in enumerate(flows[::step][:n]):
    hops = " ".join(f'{h["from"]["port"]}:{h["to"]["port"]}:{h["to"]["node"]}' for h in f["hops"])
    print(lid[f["from"]], f["dlid"], hops, sep="\t")
EOF
    agree=0
    checked=0
    while IFS=$'\t' read -r slid dlid mine; do
        theirs=$(X ibtracert "$slid" "$dlid" 2>/dev/null |
            sed -nE 's/^\[([0-9]+)\] -> (switch|ca) port \{0x[0-9a-f]+\}\[([0-9]+)\].*"([^"]*)"[[:space:]]*$/\1:\3:\4/p' |
            tr '\n' ' ' | sed 's/ $//')
        checked=$((checked + 1))
        [ "$theirs" = "$mine" ] && agree=$((agree + 1))
        [ "$theirs" = "$mine" ] || echo "  differs: $slid -> $dlid: fabscope '$mine', ibtracert '$theirs'"
    done <sample.txt
    python3 - "$size" "$secs" "$kb" "$agree" "$checked" <<'EOF'
import json, sys
size, secs, kb, agree, checked = sys.argv[1:]
plan = json.load(open("plan.json"))
every = json.load(open("all.json"))
flows = sum(len(t["flows"]) for r in plan["rounds"] for t in r["tests"])
c = plan["coverage"]
print(f"== {size}-host lab ({len(plan['endpoints'])} endpoints), OpenSM's tables")
print(f"  cover      {len(plan['rounds']):5d} rounds {flows:6d} flows  lanes {c['crossed']} of {c['lanes']} "
      f"({100 * c['crossed'] / c['lanes']:.1f} %)  plan {float(secs):.2f} s, {int(kb) / 1024:.1f} MB")
print(f"  all-pairs  {len(every['rounds']):5d} rounds (plan says {plan['all_pairs_rounds']})")
print(f"  ibtracert agrees on {agree} of {checked} sampled cover flows, hop by hop")
EOF
    cat plan.txt | sed 's/^/  /'
    "$FABSCOPE" lab down --dir "$lab" -q
    mv snap.json "snap-$size.json"
    loads+=(--load "$size-host lab (OpenSM)=$work/snap-$size.json")
done
echo
"$BENCH" "$trials" "${loads[@]}"
