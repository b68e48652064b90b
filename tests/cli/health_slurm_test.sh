#!/bin/bash
# fabscope health as a real Slurm's HealthCheckProgram: munged, slurmctld and
# slurmd (Debian's slurm-wlm) started here with their own key, config, state
# and ports, the node's sysfs a fixture tree. A healthy tree keeps the node
# idle through several health checks; once the tree is one whose NIC trained
# at PCIe x8, the node is drained with fabscope's reason, as `sinfo -R` shows.
# Every daemon is stopped by the PID recorded when it was started, on every
# path out.
# Usage: health_slurm_test.sh FABSCOPE FIXTURES_DIR WORK_DIR
set -eu
fabscope=$1
fixtures=$2
work=$3
slurm_lab=$(cd "$(dirname "$0")/../../lab/slurm" && pwd)
node=fab01
rm -rf "$work"
mkdir -p "$work/state" "$work/spool"
chmod 700 "$work"
pids=()
fail() {
    echo "FAIL: $*" >&2
    for f in munged.log slurmctld.log slurmd.log health.log; do
        [ -f "$work/$f" ] && { echo "--- $f (last lines)" >&2; tail -n 15 "$work/$f" >&2; }
    done
    exit 1
}
stop_all() {
    # Last started, first stopped; only the PIDs this script started.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null || true
    done
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        for _ in $(seq 1 50); do
            kill -0 "${pids[i]}" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
}
trap stop_all EXIT
trap 'exit 130' INT TERM

for tool in munged mungekey slurmctld slurmd scontrol sinfo; do
    command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null ||
        fail "$tool is not installed (scripts/setup installs munge and slurm-wlm)"
done
export PATH=$PATH:/usr/sbin

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

mungekey -c -k "$work/munge.key" || fail "mungekey failed"
munged -F -f --key-file="$work/munge.key" --socket="$work/munge.sock" \
    --pid-file="$work/munged.pid" --log-file="$work/munged.log" \
    --seed-file="$work/munged.seed" >"$work/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -S "$work/munge.sock" ] && break; sleep 0.1; done
[ -S "$work/munge.sock" ] || fail "munged did not create its socket"

ln -sfn "$fixtures/healthy" "$work/fixture"
cat >"$work/health-check.sh" <<WRAP
#!/bin/sh
# slurmd runs this with a clean environment: scontrol needs SLURM_CONF.
export SLURM_CONF=$work/slurm.conf
echo "health check \$(date +%T.%N)" >>$work/health.log
exec $fabscope health --sysfs-root $work/fixture --drain --state $work/health-state.json \\
    >>$work/health.log 2>&1
WRAP
chmod 755 "$work/health-check.sh"

cat >"$work/slurm.conf" <<CONF
ClusterName=fabscope-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
Include $slurm_lab/minimal.conf
HealthCheckProgram=$work/health-check.sh
HealthCheckInterval=1
HealthCheckNodeState=ANY
NodeName=$node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES State=UP
CONF
export SLURM_CONF=$work/slurm.conf

slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
scontrol ping 2>/dev/null | grep -q UP || fail "slurmctld did not answer scontrol ping"
slurmd -D -N "$node" >"$work/slurmd.out" 2>&1 &
pids+=($!)

state() { sinfo -h -n "$node" -o %T 2>/dev/null; }
checks() { grep -c '^health check' "$work/health.log" 2>/dev/null || echo 0; }
for _ in $(seq 1 50); do [ "$(state)" = idle ] && break; sleep 0.2; done
[ "$(state)" = idle ] || fail "the node did not come up idle (state '$(state)')"

# Healthy: several health checks later the node is still idle, with no reason.
start=$(checks)
for _ in $(seq 1 60); do [ "$(checks)" -ge $((start + 3)) ] && break; sleep 0.1; done
[ "$(checks)" -ge $((start + 3)) ] || fail "slurmd did not run the health check 3 times"
[ "$(state)" = idle ] || fail "healthy node is '$(state)', not idle"
[ -z "$(sinfo -h -R)" ] || fail "healthy node has a reason: $(sinfo -h -R)"
grep -q 'fabscope health: healthy' "$work/health.log" || fail "no healthy verdict in health.log"

# The NIC retrains at x8: the next health check drains the node.
ln -sfn "$fixtures/pcie-x8" "$work/fixture"
want="fabscope: mlx5_0 PCIe 0000:19:00.0 downtrained to x8 (max x16)"
for _ in $(seq 1 50); do
    sinfo -h -R -o '%E' | grep -qxF "$want" && break
    sleep 0.2
done
sinfo -R >"$work/sinfo-R.txt"
sinfo -h -R -o '%E' | grep -qxF "$want" ||
    fail "node not drained with fabscope's reason; sinfo -R: $(cat "$work/sinfo-R.txt")"
case "$(state)" in
    drained | draining) ;;
    *) fail "node state '$(state)', not drained" ;;
esac
cat "$work/sinfo-R.txt"
sinfo -R -o '%E | %U | %H | %N'
sinfo -n "$node"
echo "PASS in ${SECONDS}s: healthy node idle through $(($(checks) - start)) checks; x8 node drained"
