#!/bin/bash
# bench/mesh-round-time.sh: what one round of `mesh run` costs, measured in the
# Soft-RoCE VM (9 hosts under 3 leaves, 2 spines, nothing shaped, no tracing;
# all-pairs by mpirun at the defaults, -D 2s --warmup 500ms), and the wall
# time of all-pairs against cover that it gives on paper at the lab sizes and
# at 16,384 hosts: the pairs of a round run at once, so a round costs about
# the same at any size. The rounds come from the planner: N-1 for all-pairs,
# and for cover the planned rounds plus the adaptive pass as
# bench/mesh_plan_bench measured them (ROUNDS_COVER_648, _2048 and _16384
# override 7, 7 and 8). The VM's round is an upper bound for hardware: its
# nine ranks, their MPI polling and rxe's data path share two emulated CPUs.
#
#   bench/mesh-round-time.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fabscope=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
[ -x "$fabscope" ] || { echo "build first (scripts/build)" >&2; exit 3; }
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cat > "$work/guest.sh" <<EOF
F=\$(guest_path $fabscope)
EOF
cat >> "$work/guest.sh" <<'EOF'
rxe_init
rxe_fabric 3 2 3
H=b1,a1,c1,b2,a2,c2,b3,a3,c3
t0=$(date +%s.%N)
fabric_mpirun $H $F mesh run --no-trace -o all.json 2> all.err
echo "rc=$? wall=$(echo "$(date +%s.%N) - $t0" | bc)"
EOF
VM_TIMEOUT=${VM_TIMEOUT:-900} lab/rxe/vm -o "$work/run" "$work/guest.sh" >"$work/vm.log" 2>&1 ||
    { echo "the VM run failed:" >&2; tail -20 "$work/vm.log" >&2; exit 1; }
python3 - "$work/run" <<'PY'
import json, os, sys
doc = json.load(open(f"{sys.argv[1]}/all.json"))
rounds = doc["rounds_done"]
flows = sum(1 for f in doc["flows"] if f["measured"] and f["ok"])
if doc["status"] != "complete" or rounds == 0:
    sys.exit(f"the run did not complete: {doc['status']}, {rounds} rounds")
round_s = doc["wall_seconds"] / rounds
print("Soft-RoCE VM, 9 hosts (3 leaves, 2 spines), all-pairs by mpirun, -D 2s --warmup 500ms, no tracing")
print(f"  {rounds} rounds, {flows} of {len(doc['flows'])} flows measured, {doc['wall_seconds']:.1f} s: "
      f"{round_s:.2f} s a round, of which the flows 2 x 2.5 s and the rest {round_s - 5:.2f} s")
cover = {648: int(os.environ.get("ROUNDS_COVER_648", 7)),
         2048: int(os.environ.get("ROUNDS_COVER_2048", 7)),
         16384: int(os.environ.get("ROUNDS_COVER_16384", 8))}
def span(s):
    h, rest = divmod(int(round(s)), 3600)
    m, sec = divmod(rest, 60)
    return f"{h} h {m:02d} min" if h else f"{m} min {sec:02d} s"
print(f"On paper, {round_s:.2f} s a round:")
print(f"  {'hosts':>7}  {'all-pairs':>22}  {'cover + adaptive':>22}  ratio")
for n, c in cover.items():
    ap = n - 1 if n % 2 == 0 else n
    print(f"  {n:7d}  {ap:6d} rounds {span(ap * round_s):>10}  {c:6d} rounds {span(c * round_s):>10}  {ap / c:5.0f}x")
PY
