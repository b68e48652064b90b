# lab/rxe/guest.sh: sourced by every guest script of the Soft-RoCE lab VM.
# Hosts are network namespaces h1..hN, each owning one rxe device (exclusive
# RDMA namespace mode: a host sees only its own device, as on real hosts).
#
#   rxe_init                         load the RDMA modules, exclusive namespaces
#   rxe_bridge N [MTU]               hosts h1..hN (10.0.0.i) on one switch (namespace sw)
#   rxe_leaf_spine [MTU]             a routed 2-leaf/2-spine fabric with ECMP:
#                                    a1,a2 under leaf l1 (10.1.0.x); b1,b2 under l2 (10.2.0.x)
#                                    (rxe_fabric 2 2 2 MTU)
#   rxe_fabric LEAVES SPINES HOSTS_PER_LEAF [MTU]
#                                    a routed leaf-spine (at most 9 leaves, 9 spines): leaf lL
#                                    has hosts named by letter (a1.. under l1, b1.. under l2,
#                                    10.L.0.i) on a bridge (10.L.0.254), spine sS is cabled to
#                                    every leaf over 10.9.LS.0/31 (l side) and .1 (s side);
#                                    leaves spread over all spines by ECMP on the L4 hash;
#                                    routers answer every TTL expiry (no ICMP rate limit) from
#                                    the address they received it on; every address is named
#                                    in $FABRIC_HOSTS (/run/fabric.hosts, /etc/hosts format)
#   in_host H CMD...                 run CMD on host H
#   host_addr H                      H's IPv4 address on eth0
#   impair H QDISC...                shape the switch port towards H (what H receives):
#                                    impair h3 netem loss 1%; impair h3 tbf rate 50mbit ...
#   impair_link lL sS QDISC...       shape the cable between leaf L and spine S, both ways:
#                                    impair_link l1 s2 tbf rate 20mbit burst 32kbit latency 50ms
#   host_counters H                  H's rxe hw_counters, "name=value" per line
#   ecn_bottleneck H RATE LIMIT      the switch port towards H (rxe_bridge) as a congested
#                                    leaf port: htb at RATE into one RED queue of LIMIT bytes
#                                    that CE-marks ECN-capable packets (min LIMIT/20, max
#                                    LIMIT/8): ecn_bottleneck h1 100mbit 1000000
#   port_qdisc H                     `tc -s qdisc` of the switch port towards H
#   guest_path PATH                  a host path as the guest sees it (/tmp -> /run/hosttmp)
#   mesh_mpirun N CMD...             Open MPI's mpirun from h1, one rank on each of h1..hN (of
#                                    rxe_bridge), launched through lab/rxe/netns-rsh, TCP over eth0
#   rxe_planes N [MTU]               hosts q1..qN with an rxe device per plane: eth0 on plane
#                                    0's switch (namespace pl0, 10.10.0.i), eth1 on plane 1's
#                                    (pl1, 10.11.0.i); shape plane P's port towards qI with
#                                    ip netns exec plP tc qdisc replace dev qI root QDISC...
#   planes_mpirun N CMD...           mpirun from q1, two ranks on each of q1..qN (rxe_planes)
#   lldp_start DIR NS...             lldpd in each namespace NS, named NS, LLDPDU every second
#                                    (TTL 3 s), port IDs the interface names; socket DIR/NS.sock,
#                                    log DIR/NS.log, its PID in DIR/NS.pid
#   lldp_show DIR NS                 what NS's lldpd knows, `lldpcli show neighbors -f keyvalue`
#   lldp_wait DIR NS REGEX [SECONDS] wait (default 30 s) until lldp_show DIR NS matches REGEX
#   lldp_stop DIR                    stop every lldpd lldp_start recorded in DIR, by its PID,
#                                    and wait (at most 5 s) until they have exited
#   leaf_swap_ports lL P1 P2         re-plug: leaf lL's host ports P1 and P2 trade names (so
#                                    port numbers), as if the two hosts' cables were swapped
#   fabric_mpirun_all CMD...         fabric_mpirun over every host of rxe_fabric
#   fabric_mpirun HOSTS CMD...       the same over hosts of rxe_fabric (HOSTS: a1,a2,b1,...),
#                                    one rank each in that order, launched from the first
#   agents_start DIR HOSTS CMD...    CMD (e.g. $F perf serve --allow 10.0.0.0/8) in each host
#                                    of HOSTS (a1,b2,...) as that host, in the background: its
#                                    PID in DIR/H.pid, its output in DIR/H.log; DIR/agents.txt
#                                    lists the hosts' addresses in HOSTS' order (mesh run --hosts)
#   agents_wait DIR REGEX [SECONDS]  wait (default 20 s) until every DIR/*.log matches REGEX
#   agents_stop DIR                  stop every agent agents_start recorded in DIR, by its PID
#   slurm_start DIR HOSTS            a Slurm cluster of HOSTS (a1,b2,...; Debian's slurm-wlm):
#                                    munged in the VM, slurmctld in the first host, a slurmd
#                                    in each host (its node name the host's), state and logs in
#                                    DIR; every daemon's PID in DIR/run/NAME.pid; returns once
#                                    every node is idle (at most 30 s)
#   slurm_in DIR CMD...              CMD (srun, sinfo, ...) on the first host, told DIR's config
#   slurm_stop DIR                   stop every daemon slurm_start recorded in DIR, by its PID
set -u

guest_path() {
    case $1 in
        /tmp/*) echo "${FABSCOPE_HOST_TMP:-/run/hosttmp}/${1#/tmp/}";;
        *) echo "$1";;
    esac
}

rxe_init() {
    local d=()
    [ -n "${FABSCOPE_MODULES:-}" ] && d=(-d "$FABSCOPE_MODULES")
    modprobe "${d[@]}" ib_core netns_mode=0
    modprobe "${d[@]}" rdma_rxe
    modprobe "${d[@]}" ib_uverbs
}

# _host NAME IP/PREFIX PEER_NS PEER_IF MTU: a host namespace with eth0 cabled to PEER_NS:PEER_IF.
_host() {
    local name=$1 addr=$2 peer_ns=$3 peer_if=$4 mtu=$5
    ip netns add "$name"
    ip link add eth0 netns "$name" mtu "$mtu" type veth peer name "$peer_if" netns "$peer_ns" mtu "$mtu"
    ip -n "$name" addr add "$addr" dev eth0
    ip -n "$name" link set lo up
    ip -n "$name" link set eth0 up
    ip -n "$peer_ns" link set "$peer_if" up
    ip netns exec "$name" rdma link add "rxe_$name" type rxe netdev eth0
    rdma dev set "rxe_$name" netns "$name"
}

rxe_bridge() {
    local n=$1 mtu=${2:-1500} i
    ip netns add sw
    ip -n sw link add br0 type bridge
    ip -n sw link set br0 up
    for i in $(seq 1 "$n"); do
        _host "h$i" "10.0.0.$i/24" sw "p$i" "$mtu"
        ip -n sw link set "p$i" master br0
    done
}

rxe_leaf_spine() {
    rxe_fabric 2 2 2 "${1:-1500}"
}

rxe_fabric() {
    local leaves=$1 spines=$2 per_leaf=$3 mtu=${4:-1500} r l s m h letters=abcdefghi
    local names=${FABRIC_HOSTS:-/run/fabric.hosts}
    if [ "$leaves" -gt 9 ] || [ "$spines" -gt 9 ] || [ "$per_leaf" -gt 200 ]; then
        echo "rxe_fabric: at most 9 leaves, 9 spines, 200 hosts per leaf" >&2
        return 2
    fi
    : > "$names"
    for r in $(seq -f 'l%g' 1 "$leaves") $(seq -f 's%g' 1 "$spines"); do
        ip netns add "$r"
        ip -n "$r" link set lo up
        # L4 hashing spreads RoCE flows by UDP source port; every TTL expiry
        # answered, from the interface it came in on, so traces name cables.
        ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.fib_multipath_hash_policy=1 \
            net.ipv4.icmp_ratelimit=0 net.ipv4.icmp_errors_use_inbound_ifaddr=1
    done
    # Leaves route hosts on a bridge; spines join the leaves over /31 links.
    for l in $(seq 1 "$leaves"); do
        ip -n "l$l" link add br0 type bridge
        ip -n "l$l" addr add "10.$l.0.254/24" dev br0
        ip -n "l$l" link set br0 up
        echo "10.$l.0.254 l$l" >> "$names"
        for s in $(seq 1 "$spines"); do
            ip link add "up$s" netns "l$l" mtu "$mtu" type veth peer name "down$l" netns "s$s" mtu "$mtu"
            ip -n "l$l" addr add "10.9.$l$s.0/31" dev "up$s"
            ip -n "s$s" addr add "10.9.$l$s.1/31" dev "down$l"
            ip -n "l$l" link set "up$s" up
            ip -n "s$s" link set "down$l" up
            echo "10.9.$l$s.0 l$l" >> "$names"
            echo "10.9.$l$s.1 s$s" >> "$names"
        done
    done
    for s in $(seq 1 "$spines"); do
        for l in $(seq 1 "$leaves"); do
            ip -n "s$s" route add "10.$l.0.0/24" via "10.9.$l$s.0"
        done
    done
    for l in $(seq 1 "$leaves"); do
        for m in $(seq 1 "$leaves"); do
            [ "$m" = "$l" ] && continue
            local hops=()
            for s in $(seq 1 "$spines"); do hops+=(nexthop via "10.9.$l$s.1"); done
            ip -n "l$l" route add "10.$m.0.0/24" "${hops[@]}"
        done
        local letter=${letters:$((l - 1)):1}
        for h in $(seq 1 "$per_leaf"); do
            _host "$letter$h" "10.$l.0.$h/24" "l$l" "p$letter$h" "$mtu"
            ip -n "l$l" link set "p$letter$h" master br0
            ip -n "$letter$h" route add default via "10.$l.0.254"
            echo "10.$l.0.$h $letter$h" >> "$names"
        done
    done
}

impair_link() {
    local l=$1 s=$2
    shift 2
    ip netns exec "$l" tc qdisc replace dev "up${s#s}" root "$@"
    ip netns exec "$s" tc qdisc replace dev "down${l#l}" root "$@"
}

# unimpair_link L S: the cable between leaf L and spine S as it was.
unimpair_link() {
    ip netns exec "$1" tc qdisc del dev "up${2#s}" root 2>/dev/null
    ip netns exec "$2" tc qdisc del dev "down${1#l}" root 2>/dev/null
    return 0
}

# impair_host_port H QDISC...: the leaf's port toward host H of rxe_fabric
# (a2 is on l1's port pa2): what H receives, as a slow NIC or a bad host
# cable would have it.
impair_host_port() {
    local h=$1 letters=abcdefghi
    shift
    local prefix=${letters%%"${h:0:1}"*}
    ip netns exec "l$((${#prefix} + 1))" tc qdisc replace dev "p$h" root "$@"
}

in_host() {
    local h=$1
    shift
    # Its own UTS namespace too: the host's name is H, as on a real host.
    ip netns exec "$h" unshare --uts sh -c 'echo "$0" > /proc/sys/kernel/hostname && exec "$@"' "$h" "$@"
}

# port_wait H PORT [LIMIT]: waits (at most LIMIT s, default 20) until a TCP
# server listens on PORT in host H (a `perf serve` that is up), instead of a
# fixed sleep that races its start.
port_wait() {
    local h=$1 port=$2 limit=${3:-20} end
    end=$(($(date +%s) + limit))
    while [ "$(date +%s)" -lt "$end" ]; do
        ip netns exec "$h" ss -Hltn "sport = :$port" | grep -q . && return 0
        sleep 0.1
    done
    echo "port_wait: nothing listens on port $port in $h after ${limit} s" >&2
    return 1
}

# text_wait FILE TEXT [LIMIT]: waits (at most LIMIT s, default 60) until FILE
# holds TEXT: a command has reached the step a scenario acts on.
text_wait() {
    local file=$1 text=$2 limit=${3:-60} end
    end=$(($(date +%s) + limit))
    while [ "$(date +%s)" -lt "$end" ]; do
        grep -qF -- "$text" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "text_wait: $file does not say \"$text\" after ${limit} s" >&2
    return 1
}

# host_addr H: H's IPv4 address on eth0.
host_addr() {
    ip -n "$1" -4 -o addr show dev eth0 | awk '{print $4}' | cut -d/ -f1
}

# _host_daemon H OUT PIDFILE CMD...: CMD as in_host runs it, in the
# background, its output in OUT and its PID in PIDFILE. Not through in_host: a
# function in the background is a subshell, and $! must be CMD itself (ip
# netns exec, unshare and sh all exec).
_host_daemon() {
    local h=$1 out=$2 pidfile=$3
    shift 3
    ip netns exec "$h" unshare --uts sh -c 'echo "$0" > /proc/sys/kernel/hostname && exec "$@"' \
        "$h" "$@" > "$out" 2>&1 &
    echo $! > "$pidfile"
}

impair() {
    local h=$1
    shift
    local port=p${h#h}
    ip netns exec sw tc qdisc replace dev "$port" root "$@"
}

host_counters() {
    ip netns exec "$1" sh -c 'cd /sys/class/infiniband/*/ports/1/hw_counters && for f in *; do echo "$f=$(cat $f)"; done'
}

# _mpirun FROM NP HOSTS PER_HOST CMD...: Open MPI's mpirun from host FROM, NP
# ranks over HOSTS (addresses, comma-separated), PER_HOST on each.
_mpirun() {
    local from=$1 np=$2 hosts=$3 per_host=$4
    shift 4
    # Each host is a namespace: "ssh" into it is netns-rsh. No tree spawn (every
    # daemon from FROM), TCP only (no UCX, no verbs BTL: the RDMA is what we test).
    # FABSCOPE_MPIRUN_OPTIONS: more mpirun options, split on spaces.
    # shellcheck disable=SC2086
    in_host "$from" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun -np "$np" --host "$hosts" --map-by "ppr:$per_host:node" \
        --mca plm_rsh_agent "$(guest_path "${FABSCOPE_RXE_DIR:?}")/netns-rsh" \
        --mca plm_rsh_no_tree_spawn 1 --mca pml ob1 --mca btl tcp,self \
        --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
        ${FABSCOPE_MPIRUN_OPTIONS:-} "$@"
}

mesh_mpirun() {
    local n=$1 hosts="" i
    shift
    for i in $(seq 1 "$n"); do hosts="$hosts${hosts:+,}10.0.0.$i"; done
    _mpirun h1 "$n" "$hosts" 1 "$@"
}

# rxe_planes N [MTU]: hosts q1..qN with an HCA per plane, as a rail-optimised
# fabric has them: eth0 on plane 0's switch (namespace pl0, 10.10.0.i), eth1
# on plane 1's (pl1, 10.11.0.i), an rxe device over each (rxe_qI_0, rxe_qI_1:
# device names are the kernel's, one per machine, so a run names them by
# interface, --devices eth0,eth1).
rxe_planes() {
    local n=$1 mtu=${2:-1500} i p
    for p in 0 1; do
        ip netns add "pl$p"
        ip -n "pl$p" link add br0 type bridge
        ip -n "pl$p" link set br0 up
    done
    for i in $(seq 1 "$n"); do
        ip netns add "q$i"
        ip -n "q$i" link set lo up
        for p in 0 1; do
            ip link add "eth$p" netns "q$i" mtu "$mtu" type veth peer name "q$i" netns "pl$p" mtu "$mtu"
            ip -n "q$i" addr add "10.1$p.0.$i/24" dev "eth$p"
            ip -n "q$i" link set "eth$p" up
            ip -n "pl$p" link set "q$i" master br0
            ip -n "pl$p" link set "q$i" up
            ip netns exec "q$i" rdma link add "rxe_q${i}_$p" type rxe netdev "eth$p"
            rdma dev set "rxe_q${i}_$p" netns "q$i"
        done
    done
}

# planes_mpirun N CMD...: mpirun from q1, two ranks on each of q1..qN (of
# rxe_planes): local rank i takes plane i's device with --devices eth0,eth1.
planes_mpirun() {
    local n=$1 hosts="" i
    shift
    for i in $(seq 1 "$n"); do hosts="$hosts${hosts:+,}10.10.0.$i:2"; done
    _mpirun q1 $((2 * n)) "$hosts" 2 "$@"
}

lldp_start() {
    local dir=$1 ns
    shift
    # lldpd configures itself through lldpcli running as _lldpd, which must
    # reach the socket: a mktemp -d directory (0700) would stop it.
    chmod 755 "$dir"
    for ns in "$@"; do
        printf '%s\n' "configure system hostname $ns" "configure lldp tx-interval 1" \
            "configure lldp tx-hold 2" "configure lldp portidsubtype ifname" > "$dir/$ns.conf"
        # -d: in the foreground, so $! is lldpd itself (ip netns exec execs it).
        ip netns exec "$ns" lldpd -d -u "$dir/$ns.sock" -O "$dir/$ns.conf" > "$dir/$ns.log" 2>&1 &
        echo $! > "$dir/$ns.pid"
    done
}

lldp_show() {
    ip netns exec "$2" lldpcli -u "$1/$2.sock" show neighbors -f keyvalue 2>/dev/null
}

lldp_wait() {
    local dir=$1 ns=$2 re=$3 limit=${4:-30} end
    end=$(($(date +%s) + limit))
    while [ "$(date +%s)" -lt "$end" ]; do
        lldp_show "$dir" "$ns" | grep -Eq "$re" && return 0
        sleep 0.2
    done
    echo "lldp_wait: $ns: no neighbour matching $re after ${limit} s" >&2
    return 1
}

lldp_stop() {
    local f end
    for f in "$1"/*.pid; do
        [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    # Returns once they are gone (or after 5 s), so a caller can count them.
    end=$(($(date +%s) + 5))
    for f in "$1"/*.pid; do
        [ -e "$f" ] || continue
        while kill -0 "$(cat "$f")" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.05; done
    done
    return 0
}

leaf_swap_ports() {
    local l=$1 a=$2 b=$3
    ip -n "$l" link set "$a" down
    ip -n "$l" link set "$b" down
    ip -n "$l" link set "$a" name swap_tmp
    ip -n "$l" link set "$b" name "$a"
    ip -n "$l" link set swap_tmp name "$b"
    ip -n "$l" link set "$a" up
    ip -n "$l" link set "$b" up
}

fabric_mpirun_all() {
    local names=${FABRIC_HOSTS:-/run/fabric.hosts}
    fabric_mpirun "$(awk '$2 ~ /^[a-i][0-9]+$/ {print $2}' "$names" | paste -sd, -)" "$@"
}

fabric_mpirun() {
    local names=$1 hosts="" h addr
    shift
    for h in $(echo "$names" | tr , ' '); do
        addr=$(host_addr "$h")
        hosts="$hosts${hosts:+,}$addr"
    done
    _mpirun "${names%%,*}" "$(echo "$names" | tr , '\n' | wc -l)" "$hosts" 1 "$@"
}

ecn_bottleneck() {
    local h=$1 rate=$2 limit=$3 port=p${1#h}
    ip netns exec sw tc qdisc replace dev "$port" root handle 1: htb default 1
    ip netns exec sw tc class add dev "$port" parent 1: classid 1:1 htb rate "$rate" ceil "$rate"
    # One FIFO (not fq_codel: its flow queues would spare a sparse probe the queue).
    ip netns exec sw tc qdisc add dev "$port" parent 1:1 handle 10: red limit "$limit" \
        min $((limit / 20)) max $((limit / 8)) avpkt 1100 probability 1.0 ecn bandwidth "$rate"
}

port_qdisc() {
    ip netns exec sw tc -s qdisc show dev "p${1#h}"
}

agents_start() {
    local dir=$1 hosts=$2 h
    shift 2
    mkdir -p "$dir"
    : > "$dir/agents.txt"
    for h in $(echo "$hosts" | tr , ' '); do
        host_addr "$h" >> "$dir/agents.txt"
        _host_daemon "$h" "$dir/$h.log" "$dir/$h.pid" "$@"
    done
}

agents_wait() {
    local dir=$1 re=$2 limit=${3:-20} end f missing
    end=$(($(date +%s) + limit))
    while [ "$(date +%s)" -lt "$end" ]; do
        missing=0
        for f in "$dir"/*.log; do grep -Eq "$re" "$f" || missing=1; done
        [ "$missing" = 0 ] && return 0
        sleep 0.1
    done
    echo "agents_wait: not every agent matched $re after ${limit} s" >&2
    return 1
}

agents_stop() {
    local f
    for f in "$1"/*.pid; do
        [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    return 0
}

_slurm_daemon() {
    local dir=$1 name=$2 h=$3
    shift 3
    _host_daemon "$h" "$dir/$name.out" "$dir/run/$name.pid" env SLURM_CONF="$dir/slurm.conf" "$@"
}

slurm_start() {
    local dir=$1 hosts=$2 first h addr n=0 i end
    first=${hosts%%,*}
    mkdir -p "$dir/run" "$dir/state" "$dir/spool"
    chmod 700 "$dir"
    echo "$first" > "$dir/controller"
    /usr/sbin/mungekey -c -k "$dir/munge.key" || return 1
    /usr/sbin/munged -F -f --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
        --pid-file="$dir/munged.daemon-pid" --log-file="$dir/munged.log" \
        --seed-file="$dir/munged.seed" > "$dir/munged.out" 2>&1 &
    echo $! > "$dir/run/munged.pid"
    for i in $(seq 1 50); do [ -S "$dir/munge.sock" ] && break; sleep 0.1; done
    addr=$(host_addr "$first")
    cat > "$dir/slurm.conf" <<CONF
ClusterName=fabscope-lab
SlurmctldHost=$first($addr)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/slurmctld.daemon-pid
SlurmdPidFile=$dir/slurmd-%n.daemon-pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
Include $(guest_path "${FABSCOPE_RXE_DIR:?}")/../slurm/minimal.conf
CONF
    for h in $(echo "$hosts" | tr , ' '); do
        addr=$(host_addr "$h")
        echo "NodeName=$h NodeHostname=$h NodeAddr=$addr CPUs=1 State=UNKNOWN" >> "$dir/slurm.conf"
        mkdir -p "$dir/spool/$h" "$dir/tmp/$h"
        n=$((n + 1))
    done
    echo "PartitionName=lab Nodes=ALL Default=YES State=UP MaxTime=INFINITE" >> "$dir/slurm.conf"
    # No cgroup mounted in the VM, nor needed (proctrack/linuxproc, task/none):
    # v1 named, not detected, so slurmd starts without a hierarchy.
    echo "CgroupPlugin=cgroup/v1" > "$dir/cgroup.conf"
    _slurm_daemon "$dir" slurmctld "$first" /usr/sbin/slurmctld -D -i
    for h in $(echo "$hosts" | tr , ' '); do
        _slurm_daemon "$dir" "slurmd-$h" "$h" /usr/sbin/slurmd -D -N "$h"
    done
    end=$(($(date +%s) + 30))
    while [ "$(date +%s)" -lt "$end" ]; do
        [ "$(slurm_in "$dir" sinfo -h -t idle -o %D 2>/dev/null)" = "$n" ] && return 0
        sleep 0.2
    done
    echo "slurm_start: not all $n nodes idle after 30 s:" >&2
    slurm_in "$dir" sinfo >&2
    tail -n 5 "$dir"/*.log >&2
    return 1
}

slurm_in() {
    local dir=$1
    shift
    in_host "$(cat "$dir/controller")" env SLURM_CONF="$dir/slurm.conf" "$@"
}

slurm_stop() {
    local f i
    # slurmds first, the controller and munged last; only what slurm_start recorded.
    for f in "$1"/run/slurmd-*.pid "$1/run/slurmctld.pid" "$1/run/munged.pid"; do
        [ -e "$f" ] || continue
        kill "$(cat "$f")" 2>/dev/null
        for i in $(seq 1 50); do kill -0 "$(cat "$f")" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$(cat "$f")" 2>/dev/null
    done
    return 0
}
