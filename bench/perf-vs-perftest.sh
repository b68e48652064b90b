#!/bin/bash
# bench/perf-vs-perftest.sh [ROUNDS] [SECONDS] [LATENCY_ROUNDS]: fabscope's pairwise tests
# against perftest in the Soft-RoCE VM (2 vCPUs, software emulation), between
# the same two hosts h1 -> h2, interleaved finely so that the noise of a shared
# 2-core machine falls on both tools alike. A benchmark, not a timed test.
#
# Each round runs, for each tool in turn (which tool goes first alternates
# every round; the latency tests only in the first LATENCY_ROUNDS rounds,
# default all, since bandwidth is the noisy figure that needs many rounds):
#   WRITE bandwidth, 64K, SECONDS (default 3) s:
#       ib_write_bw -D S -s 65536 -t 128 -Q 100   fabscope perf run --test write -D Ss -t 128 --cq-mod 100
#       (1 QP, 128 in flight, one signalled completion per 100, path MTU the
#       port's: perftest's defaults, passed explicitly to both)
#   WRITE latency, 2 B, 2000 iterations:  ib_write_lat -n 2000 -s 2   fabscope perf run --latency --test write -n 2000
#   SEND latency, 2 B, 2000 iterations:   ib_send_lat -n 2000 -s 2    fabscope perf run --latency --test send -n 2000
# Like with like:
#   - perftest prints MB/s as 2^20 bytes/s; it is converted to 10^6 (fabscope's unit).
#   - perftest's -D window: it counts completions between two SIGALRMs, margin
#     = S/4 s (integer) after the start and before the end: for S = 3 the
#     margin is 0 and it measures the whole 3 s from its first post. fabscope
#     warms up 1 s (--warmup), then measures S s between completions. Both
#     count only completed messages inside their window.
#   - latency: perftest's t_typical (median of one-way = RTT/2) against
#     fabscope's median (RTT/2 as well).
#   - CPU: user+system seconds of the client and server processes (getrusage
#     of the per-run processes through /usr/bin/time; /proc/PID/stat of
#     fabscope's long-running server), and busy seconds of the whole VM
#     (/proc/stat: this includes rxe's kernel work, in softirq and kworkers),
#     per GB moved: bytes from h1's rxe sent_bytes counter (the same counter for
#     both tools, headers included).
# Reported: medians, min-max of each tool; the ratio of the medians with a
# bootstrap 95 % interval (rounds resampled as pairs, 2000 draws, fixed seed);
# the median and the min/max of the per-round ratios (the two tools of one
# round ran back to back).
# Goals: bandwidth >= 0.95 of perftest's, median latency <= 1.10 of perftest's.
#
# Last figures (2026-12-01, 2-core host, 3 s runs; "before" = fabscope at
# 2f934c7, the pacer read the clock on every spin; the VM's clock_gettime is a
# system call (strace: 10,028 calls in one 3 s run, perftest's loop has none)):
#   bench 1, 6 rounds, 378 s wall, before | pacer fix | perftest (medians):
#     bw        29.5 | 30.0 | 33.8 MB/s   ratio 0.87 [0.65, 1.00] | 0.89 [0.73, 0.97]
#     write_lat  104 |   83 |   68 us     ratio 1.52 | 1.22
#     send_lat    99 |   84 |   84 us     ratio 1.18 | 0.99
#     CPU s/GB bw, processes (client+server) 32.3 | 31.1 | 27.9; whole VM 70.9 | 65.1 | 61.3
#   bench 2, 6 rounds, 394 s wall, pacer fix | + one clock read per latency sample
#   (final code) | perftest:
#     bw        31.7 (pacer fix = final bandwidth code) | 31.5 MB/s: ratio 1.01 [0.82, 1.20],
#               per-round ratios 0.67-1.23
#     write_lat   84 | 73 | 69 us        final ratio 1.07 [1.05, 1.63]
#     send_lat    78 | 79 | 82 us        final ratio 0.96 [0.85, 1.01]
#     CPU s/GB bw, processes 30.1 vs 30.0; whole VM 65.2 vs 67.0; no retransmissions
#   A sender sleeping on the CQ's completion channel (tried, reverted in
#   547aa9c) used 5 s/GB instead of 30 but reached only 0.69 of perftest.
#   Single runs still spread 20-35 MB/s: the bandwidth verdict needs more
#   rounds than 6 to be stable (interval width ~0.4).
#   bench 3 (2026-12-02, Release build of 3c481fa, 50 3 8; 45 rounds before the
#   VM's old time limit): the first stable verdict, and it is NOT met:
#     bw        25.6 | 30.5 MB/s (medians; IQR 22.2-30.3 | 27.2-32.7)  ratio 0.846
#               [0.774, 0.938], per-round median 0.907 (0.49-1.41);
#               CPU s/GB processes 37.7 | 31.4, whole VM 78.3 | 68.6; no retries
#     write_lat   88.8 | 80.1 us  ratio 1.108 [1.021, 1.172] (8 rounds)
#     send_lat    90.6 | 82.7 us  ratio 1.096 [0.976, 1.305] (8 rounds)
#   The 1.01 of bench 2 was noise; fabscope's WRITE bandwidth on Soft-RoCE is
#   10-20 % below ib_write_bw's, cause not yet found (both spin on the CQ, one
#   QP, 128 in flight, one completion per 100, MTU 1024, no inline).
#   Found (2026-12-02): strace -c of one 3 s run: fabscope's client made 9,117
#   clock_gettime system calls (the guest's kernel had given up on the TSC, so
#   no vDSO clock: one read per post while measuring, one per 256 spins in the
#   pacer), perftest's loop none; and its buffer sat 16 bytes into a page
#   (malloc), perftest's is page-aligned. /usr/bin/time: fabscope's client was
#   preempted 3,000-17,000 times a run, perftest's 900-4,000. Fixed in 2f16b23
#   (deadline seen at completions, pacer stride fitted to the spin: ~2-4 reads
#   per 10 ms) and 4e54e5e (page-aligned buffers). The judge: h1's sent_bytes
#   rate in each run's steady state ("on the wire", the same counter for both).
#   bench 4 (16 rounds, FABSCOPE_BASE = 8f283ec, 3 tools, 651 s): on the wire
#   fabscope 29.43 | base 26.11 | perftest 29.69 MB/s: ratio 0.992 [0.897, 1.203]
#   | base 0.879 [0.776, 1.062]; own figures 1.010 [0.957, 1.119] | 0.981.
#   bench 5 (Release of 2f16b23, 40 3 8, 980 s wall): the verdict, MET:
#     bw        30.03 | 28.39 MB/s (IQR 26.92-31.18 | 26.62-30.57)  ratio 1.034
#               [0.954, 1.068], per-round median 1.025; on the wire 31.38 |
#               31.66 MB/s, ratio 0.991 [0.945, 1.034] (all 40 rounds);
#               CPU s/GB processes 27.6 | 29.4, whole VM 70.8 | 80.0
#     write_lat   84.6 | 86.3 us  ratio 0.981 [0.585, 1.285] (8 rounds, noisy)
#     send_lat    84.5 | 87.8 us  ratio 0.962 [0.720, 1.316]
#   perftest printed 0.00 MB/s in 7 of 40 bandwidth runs (its CPU-frequency
#   sample failed: "Correlation coefficient r^2 < 0.9"); the wire rate covers
#   those rounds too.
# FABSCOPE_BASE=path adds a second fabscope binary ("base") to every round:
# the before/after of a change, in the same VM and the same rounds;
# FABSCOPE_BASE_BW_ARGS adds flags to its bandwidth runs (e.g. "--warmup 0s").
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-8}
seconds=${2:-3}
lat_rounds=${3:-$rounds}
[ "$seconds" -ge 3 ] 2>/dev/null || { echo "SECONDS must be a whole number >= 3" >&2; exit 2; }
[ "$rounds" -ge 1 ] 2>/dev/null && [ "$lat_rounds" -ge 0 ] 2>/dev/null ||
    { echo "ROUNDS must be >= 1 and LATENCY_ROUNDS >= 0" >&2; exit 2; }
# The VM's own limit grows with the work asked: a bandwidth pair took 21 s at
# S = 3 (2 x (S + 8) s allowed), the latency runs of a round 24 s (30 allowed).
export VM_TIMEOUT=${VM_TIMEOUT:-$((300 + rounds * (2 * seconds + 16) + lat_rounds * 30))}
fabscope=$(readlink -f "${FABSCOPE:-build/cli/fabscope}")
[ -x "$fabscope" ] || { echo "build first (scripts/build)" >&2; exit 3; }
base=""
[ -n "${FABSCOPE_BASE:-}" ] && base=$(readlink -f "$FABSCOPE_BASE")
work=$(mktemp -d /tmp/fabscope-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start=$(date +%s)
cat > "$work/guest.sh" <<EOF
F=\$(guest_path $fabscope)
B=${base:+\$(guest_path $base)}
ROUNDS=$rounds
LAT_ROUNDS=$lat_rounds
BASE_ARGS="${FABSCOPE_BASE_BW_ARGS:-}"
S=$seconds
EOF
cat >> "$work/guest.sh" <<'EOF'
rxe_init
rxe_bridge 2
in_host h2 $F perf serve -q --allow 10.0.0.0/24 --port 18600 &   # perftest uses 18515
FSP=$!
BSP=""
if [ -n "$B" ]; then in_host h2 $B perf serve -q --allow 10.0.0.0/24 --port 18601 & BSP=$!; fi
sleep 1
tools="perftest fabscope${B:+ base}"
vm_busy() { awk '/^cpu / {print $2+$3+$4+$7+$8+$9}' /proc/stat; }   # user nice system irq softirq steal
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
# h1's rxe counters: bytes sent (headers included) and retransmission timeouts.
# The values as read: awk's numbers print as 2.60562e+09 past 2^31 (mawk), which
# the shell's arithmetic refuses.
sent() { host_counters h1 | awk -F= '$1 == "sent_bytes" {b=$2} $1 == "completer_retry_err" {r=$2} END {print (b == "" ? 0 : b), (r == "" ? 0 : r)}'; }
tck=$(getconf CLK_TCK)
# The judge of the two tools' own figures: h1's sent_bytes read every 0.2 s
# while a bandwidth run goes on (wire_sampler FILE, stopped by its PID), and
# the rate in its steady state (wire_rate FILE: from 1 s after the counter
# first rose to 0.3 s before it last rose; headers included, MB/s).
wire_sampler() {
    ip netns exec h1 bash -c 'f=$(echo /sys/class/infiniband/*/ports/1/hw_counters/sent_bytes)
        while :; do read -r up _ < /proc/uptime; read -r b < "$f"; echo "$up $b"; sleep 0.2; done' > "$1" &
    SAMPLER=$!
}
wire_rate() {
    awk '{t[NR] = $1; b[NR] = $2}
         END {a = 0; z = 0
              for (i = 2; i <= NR; i++) if (b[i] > b[i - 1]) {if (!a) a = i; z = i}
              if (!a) {print "nan"; exit}
              t0 = t[a] + 1.0; t1 = t[z - 1] - 0.3; s = 0; e = 0
              for (i = 1; i <= NR; i++) if (t[i] >= t0 && t[i] <= t1) {if (!s) s = i; e = i}
              if (!s || e <= s) {print "nan"; exit}
              printf "%.3f\n", (b[e] - b[s]) / (t[e] - t[s]) / 1e6}' "$1"
}
# measure TEST TOOL CMD...: runs CMD (which writes out.txt, cli.cpu and maybe srv.cpu),
# then prints "TEST TOOL VALUE client_cpu server_cpu vm_busy_s bytes retries wire_MBps" (the last
# for bandwidth only); keeps out.txt as out-ROUND-TEST-TOOL.txt.
measure() {
    local test=$1 tool=$2; shift 2
    rm -f cli.cpu srv.cpu out.txt
    local b0 t0 v0 s0 srv=0
    local c
    c=$(sent); b0=${c% *}; t0=${c#* }
    if [ "$tool" = fabscope ]; then s0=$(ticks $FSP); elif [ "$tool" = base ]; then s0=$(ticks $BSP); fi
    v0=$(vm_busy)
    [ "$test" = bw ] && wire_sampler wire.txt
    "$@"
    local v1 b1 t1 wire=""
    v1=$(vm_busy)
    if [ "$test" = bw ]; then kill "$SAMPLER"; wait "$SAMPLER" 2>/dev/null || true; wire=" $(wire_rate wire.txt)"; fi
    if [ "$tool" = fabscope ]; then srv=$(( $(ticks $FSP) - s0 )); elif [ "$tool" = base ]; then srv=$(( $(ticks $BSP) - s0 )); fi
    c=$(sent); b1=${c% *}; t1=${c#* }
    cp out.txt "out-$r-$test-$tool.txt" 2>/dev/null || true
    local value
    value=$(value_of "$test" "$tool")
    local cli scpu
    cli=$(awk 'END {print $1+$2}' cli.cpu 2>/dev/null || echo 0)
    if [ -f srv.cpu ]; then scpu=$(awk 'END {print $1+$2}' srv.cpu); else scpu=$(echo "$srv $tck" | awk '{print $1/$2}'); fi
    echo "$test $tool ${value:-nan} $cli $scpu $(echo "$v1 $v0 $tck" | awk '{print ($1-$2)/$3}') $((b1 - b0)) $((t1 - t0))$wire"
}
value_of() {
    case "$1/$2" in
        bw/perftest) awk '/^ 65536/ {printf "%.3f\n", $4 * 1.048576}' out.txt;;   # 2^20 -> 10^6
        */perftest) awk '/^ 2 / {print $5}' out.txt;;                            # t_typical
        bw/*) /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["bandwidth"]["avg_MBps"])' < out.txt;;
        *) /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["latency_us"]["median"])' < out.txt;;
    esac
}
# perftest: server on h2 (started first), client on h1; -x 1 is the RoCE v2 IPv4 GID, as fabscope picks.
pt() {
    local tool=$1; shift
    in_host h2 timeout 120 /usr/bin/time -f "%U %S" -o srv.cpu $tool -d rxe_h2 -x 1 -F "$@" > /dev/null 2>&1 &
    local s=$!
    sleep 0.5
    in_host h1 timeout 120 /usr/bin/time -f "%U %S" -o cli.cpu $tool -d rxe_h1 -x 1 -F "$@" 10.0.0.2 > out.txt 2>&1 || true
    wait $s || true
}
fs() {  # fs BINARY PORT ARGS...
    local bin=$1 port=$2; shift 2
    in_host h1 timeout 120 /usr/bin/time -f "%U %S" -o cli.cpu $bin perf run 10.0.0.2:$port -q --json "$@" > out.txt 2>/dev/null || true
}
run() {  # run TEST TOOL
    local test=$1 tool=$2 bin=$F port=18600
    [ "$tool" = base ] && bin=$B port=18601
    case "$test/$tool" in
        bw/perftest) measure bw perftest pt ib_write_bw -D $S -s 65536 -t 128 -Q 100;;
        write_lat/perftest) measure write_lat perftest pt ib_write_lat -n 2000 -s 2;;
        send_lat/perftest) measure send_lat perftest pt ib_send_lat -n 2000 -s 2;;
        bw/base) measure bw $tool fs $bin $port --test write -D ${S}s -t 128 --cq-mod 100 $BASE_ARGS;;
        bw/*) measure bw $tool fs $bin $port --test write -D ${S}s -t 128 --cq-mod 100;;
        write_lat/*) measure write_lat $tool fs $bin $port --latency --test write -n 2000;;
        send_lat/*) measure send_lat $tool fs $bin $port --latency --test send -n 2000;;
    esac
}
for r in $(seq 1 $ROUNDS); do
    set -- $tools
    n=$#
    order=()
    for i in $(seq 0 $((n - 1))); do order+=("${@:$(( (i + r) % n + 1 )):1}"); done
    tests=bw
    [ "$r" -le "$LAT_ROUNDS" ] && tests="bw write_lat send_lat"
    for test in $tests; do
        for tool in "${order[@]}"; do
            # A run without a figure says why in errors.txt, by round, test and tool.
            echo "$r $(run $test $tool 2> err.txt)"
            [ -s err.txt ] && sed "s/^/$r $test $tool: /" err.txt >> errors.txt
        done
    done
done > figures.txt
kill $FSP $BSP 2>/dev/null || true
EOF
lab/rxe/vm -o "$work/run" "$work/guest.sh" >/dev/null 2>&1 || { cat "$work/run/output.log"; exit 1; }
[ -n "${KEEP:-}" ] && echo "figures: $work/run/figures.txt"
/usr/bin/python3 bench/perf_vs_perftest_report.py "$work/run/figures.txt" "$seconds" "$(($(date +%s) - start))"
if [ -s "$work/run/errors.txt" ]; then
    echo "-- what the runs printed on stderr (last 20 lines of $(wc -l < "$work/run/errors.txt")):"
    tail -n 20 "$work/run/errors.txt"
fi
