#!/bin/bash
# bench/load-rss.sh: peak memory (max RSS) and time of loading large snapshots,
# beside the size of the file, so the cost of an input and the limits in
# docs/exit-codes.md (512 MiB of JSON, memory estimated before parsing) can be
# checked. Snapshots of leaf-spine fabrics are generated here (python3), with
# counters on every port, written compact as fabscope writes them.
# Usage: bench/load-rss.sh [HOSTS...]   (default: 4096 16384 65536)
set -euo pipefail
cd "$(dirname "$0")/.."
FABSCOPE=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
work=$(mktemp -d /tmp/fabscope-rss.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
[ $# -gt 0 ] || set -- 4096 16384 65536

gen() {
    python3 - "$1" > "$2" <<'PY'
import json, sys
hosts = int(sys.argv[1])
per_leaf = 64
leaves = (hosts + per_leaf - 1) // per_leaf
spines = 32
def port(num, guid, lid, peer=None):
    p = {"num": num, "guid": "0x%016x" % guid, "lid": lid, "lmc": 0, "state": "Active",
         "phys_state": "LinkUp",
         "width": {"active": "4X", "enabled": ["1X", "4X"], "supported": ["1X", "4X"]},
         "speed": {"active": "HDR", "enabled": ["HDR"], "supported": ["HDR"]},
         "mtu": {"cap": 4096, "active": 4096}, "capability_mask": "0x2651e848",
         "counters": {"extended": True, "read_at_ms": 1764000000000, "SymbolErrorCounter": 0,
                      "PortXmitData": 123456789, "PortRcvData": 987654321, "PortXmitWait": 17}}
    if peer: p["peer"] = {"guid": "0x%016x" % peer[0], "port": peer[1]}
    return p
nodes = []
lid = 1
leaf_guid = lambda l: 0x20000000 + l
spine_guid = lambda s: 0x30000000 + s
host_guid = lambda h: 0x10000000 + h
for l in range(leaves):
    ports = [port(0, leaf_guid(l), lid)]
    for h in range(per_leaf):
        ports.append(port(h + 1, leaf_guid(l), lid, (host_guid(l * per_leaf + h), 1)))
    for s in range(spines):
        ports.append(port(per_leaf + s + 1, leaf_guid(l), lid, (spine_guid(s), l + 1)))
    nodes.append({"guid": "0x%016x" % leaf_guid(l), "type": "Switch", "description": "leaf%03d" % l,
                  "num_ports": per_leaf + spines, "ports": ports})
    lid += 1
for s in range(spines):
    ports = [port(0, spine_guid(s), lid)] + [port(l + 1, spine_guid(s), lid, (leaf_guid(l), per_leaf + s + 1)) for l in range(leaves)]
    nodes.append({"guid": "0x%016x" % spine_guid(s), "type": "Switch", "description": "spine%02d" % s,
                  "num_ports": leaves, "ports": ports})
    lid += 1
for h in range(leaves * per_leaf):
    g = host_guid(h)
    nodes.append({"guid": "0x%016x" % g, "type": "CA", "description": "h%05d HCA-1" % h, "num_ports": 1,
                  "ports": [port(1, g + 0x1000000, lid, (leaf_guid(h // per_leaf), h % per_leaf + 1))]})
    lid += 1
json.dump({"format": "fabscope-snapshot", "version": 1, "nodes": nodes}, sys.stdout, separators=(",", ":"))
PY
}

printf '%-8s %10s %12s %8s %8s\n' hosts file_MiB max_rss_MiB ratio seconds
for hosts in "$@"; do
    f="$work/s$hosts.json"
    gen "$hosts" "$f"
    size=$(stat -c %s "$f")
    /usr/bin/time -f '%M %e' -o "$work/t" "$FABSCOPE" discover --load "$f" -q >/dev/null || true
    read -r kb secs < "$work/t"
    awk -v h="$hosts" -v s="$size" -v k="$kb" -v t="$secs" \
        'BEGIN { printf "%-8d %10.1f %12.1f %8.1f %8.2f\n", h, s/1048576, k/1024, k*1024/s, t }'
done
