#!/bin/bash
# bench/validate-648.sh: wall time and peak memory of `fabscope validate` on the
# 648-host lab with a 10 s interval (the goal: under 30 s), beside the time the
# infiniband-diags take to read the same counters once (ibqueryerrors --data).
set -euo pipefail
cd "$(dirname "$0")/.."
FABSCOPE=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
lab="$work/lab"
trap '"$FABSCOPE" lab down --dir "$lab" -q 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
cd "$work"
"$FABSCOPE" lab up --dir "$lab" -q --spines 18 --leaves 36 --hosts-per-leaf 18
X() { "$FABSCOPE" lab exec --direct --dir "$lab" -- "$@"; }
X "$FABSCOPE" sweep -q -o good.json
"$FABSCOPE" plan --from good.json -o plan.yaml -q
X /usr/bin/time -f '%e %M' -o t "$FABSCOPE" validate --plan plan.yaml --interval 10s -q -o report.json || true
read -r secs kb < t
X /usr/bin/time -f '%e %M' -o t2 ibqueryerrors --data >/dev/null 2>&1 || true
read -r psecs pkb < t2
echo "== 648 hosts, 702 nodes, 1296 links"
printf '  %-58s %6.2f s %7.1f MB\n' "fabscope validate --plan --interval 10s (goal < 30 s)" "$secs" "$(echo "$kb/1024" | bc -l)"
printf '  %-58s %6.2f s  (interval %.2f s)\n' "  of which outside the interval" "$(echo "$secs - 10" | bc -l)" \
    "$(python3 -c "import json; print(json.load(open('report.json'))['interval_s'])")"
printf '  %-58s %6.2f s %7.1f MB\n' "ibqueryerrors --data (one reading of the counters)" "$psecs" "$(echo "$pkb/1024" | bc -l)"
echo "  result: $(python3 -c "import json; r=json.load(open('report.json')); print(r['result'], r['counts'])")"
