#!/bin/bash
# bench/sweep-vs-diags.sh [648] [2048] [4096]
# The full sweep against the infiniband-diags sequence that gathers the same
# information, on the same simulated lab in the same run:
#   peers:    ibnetdiscover + ibroute -n for every switch + ibqueryerrors --data,
#             in one shell inside one `lab exec`, as a user types them
#   fabscope: fabscope sweep (topology + every LFT + every active port's
#             counters), one command inside one `lab exec`
# and topology alone: fabscope sweep --no-routes --no-counters, fabscope
# discover (libibnetdisc), against ibnetdiscover.
# Each measured command pays the wrapper (`lab exec`, about 34 ms) once: the
# peers' sequence is not charged it per command (162 calls at 4,096 hosts
# would add about 5 s to the peers and nothing to fabscope).
# For each: median wall time of RUNS, MADs put on the wire (read from the
# simulator's PortXmitPkts of the local HCA port, which counts every MAD the
# tool sends), and the longest chain of MADs that depend on each other (the
# simulator has no latency, so on a real fabric that chain sets the time).
# At the end, every size side by side with its goals.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lab-sizes.sh
FABSCOPE=${FABSCOPE:-build/cli/fabscope}
RUNS=${RUNS:-3}
SIZES=("${@:-648 2048 4096}")
[ -x "$FABSCOPE" ] || { echo "build first (scripts/build)" >&2; exit 3; }
FABSCOPE=$(readlink -f "$FABSCOPE")
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
lab="$work/lab"
cleanup() { "$FABSCOPE" lab down --dir "$lab" -q 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
cd "$work"

# --direct: straight to the simulator, not through the lab's relay, for every tool alike
X() { "$FABSCOPE" lab exec --direct --dir "$lab" -- "$@"; }
# MADs the local HCA port (LID 1, port 1) has sent so far, by the extended counter.
sent() { X perfquery -x 1 1 2>/dev/null | sed -n 's/^PortXmitPkts:\.*//p'; }

# time_of CMD...: wall seconds of one run
time_of() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# The peers as a user types them, in one shell: the switch LIDs from ibnetdiscover's output.
# shellcheck disable=SC2016
peer_sequence() {
    X bash -c '
        ibnetdiscover > "$1"
        for lid in $(sed -n "s/^Switch.*# \".*\" .* lid \([0-9]*\) lmc.*/\1/p" "$1"); do
            ibroute -n "$lid"   # -n: no MADs to name each destination (fabscope names them from the topology)
        done
        ibqueryerrors --data' peers "$work/topo.txt"
}
fabscope_sweep() { X "$FABSCOPE" sweep -q -o "$work/sweep.json"; }
fabscope_topology() { X "$FABSCOPE" sweep -q --no-routes --no-counters -o "$work/topo.json"; }
fabscope_discover() { X "$FABSCOPE" discover -q -o "$work/disc.json"; }
peer_topology() { X ibnetdiscover; }

# row LABEL FUNCTION: median time, MADs of one run
row() {
    local label=$1 fn=$2 times=() before after
    before=$(sent)
    times+=("$(time_of "$fn")")
    after=$(sent)
    for _ in $(seq 2 "$RUNS"); do times+=("$(time_of "$fn")"); done
    local med mads
    med=$(printf '%s\n' "${times[@]}" | median)
    mads=$((after - before - 1))  # the perfquery that read the counter
    printf '  %-52s %8.3f s %9d MADs\n' "$label" "$med" "$mads"
    eval "T_$fn=$med; M_$fn=$mads"
}

SUMMARY=()
for size in ${SIZES[@]}; do
    lab_shape "$size"
    "$FABSCOPE" lab up --dir "$lab" -q "${args[@]}"
    switches=$(grep -c '^Switch' "$lab/net")
    echo "== $size hosts, $switches switches: median of $RUNS runs"
    echo "Topology only"
    row "ibnetdiscover" peer_topology
    row "fabscope sweep --no-routes --no-counters" fabscope_topology
    row "fabscope discover" fabscope_discover
    R_topo=$(echo "$T_fabscope_topology / $T_peer_topology" | bc -l)
    printf '  %-52s %8.2f  (goal: at most 1.00)\n' "time ratio fabscope sweep / ibnetdiscover" "$R_topo"
    echo "Full: topology + all forwarding tables + all port counters"
    row "ibnetdiscover + ibroute -n x$switches + ibqueryerrors --data" peer_sequence
    row "fabscope sweep" fabscope_sweep
    R_full=$(echo "$T_fabscope_sweep / $T_peer_sequence" | bc -l)
    goal_full=0.20; [ "$size" = 4096 ] && goal_full=0.25
    printf '  %-52s %8.2f  (goal: at most %s)\n' "time ratio fabscope sweep / peers" "$R_full" "$goal_full"
    SUMMARY+=("$(printf '%6s %8.3f %8.3f %6.2f %8.3f %8.3f %6.2f  %s' "$size" "$T_peer_topology" \
        "$T_fabscope_topology" "$R_topo" "$T_peer_sequence" "$T_fabscope_sweep" "$R_full" "$goal_full")")
    chain() { python3 -c "import json; print(json.load(open('$1'))['source']['mad_stats']['max_chain'])"; }
    echo "Longest chain of MADs each waiting for the previous one's answer"
    printf '  %-52s %8d\n' "fabscope sweep, topology only" "$(chain "$work/topo.json")"
    printf '  %-52s %8d\n' "fabscope sweep, full" "$(chain "$work/sweep.json")"
    # ibroute and ibqueryerrors send one MAD at a time, one tool after another.
    printf '  %-52s %8s\n' "peers: ibnetdiscover's own chain, then" "+"
    printf '  %-52s %8d\n' "  ibroute and ibqueryerrors, one MAD at a time" "$((M_peer_sequence - M_peer_topology))"
    echo "fabscope sweep by MADs in flight (--window; the default is 64)"
    for w in 1 4 16 64 128 256; do
        eval "fabscope_w$w() { X \"\$FABSCOPE\" sweep -q --window $w -o \"\$work/w.json\"; }"
        row "fabscope sweep --window $w" "fabscope_w$w"
    done
    # Same results?
    python3 - "$work/sweep.json" "$work/topo.txt" <<'PY'
import json, re, sys
snap = json.load(open(sys.argv[1]))
ours = set()
for l in snap["links"]:
    a = (int(l["a"]["guid"], 16), l["a"]["port"]); b = (int(l["b"]["guid"], 16), l["b"]["port"])
    ours.add(tuple(sorted([a, b])))
theirs = set(); cur = None
for line in open(sys.argv[2]):
    m = re.match(r'^(Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"', line)
    if m: cur = int(m.group(2), 16); continue
    m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SH]-([0-9a-f]+)"\[(\d+)\]', line)
    if m and cur is not None:
        theirs.add(tuple(sorted([(cur, int(m.group(1))), (int(m.group(2), 16), int(m.group(3)))])))
print(f"  {'links: fabscope sweep vs ibnetdiscover':52s} {len(ours)} vs {len(theirs)}: {'identical' if ours == theirs else 'DIFFERENT'}")
PY
    "$FABSCOPE" lab down --dir "$lab" -q
done

echo "== Side by side: seconds, median of $RUNS runs (topology goal: ratio at most 1.00)"
printf '%6s %8s %8s %6s %8s %8s %6s  %s\n' hosts ibnetdis fabscope ratio peers fabscope ratio "full goal"
printf '%s\n' "${SUMMARY[@]}"
