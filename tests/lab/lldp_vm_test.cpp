// fabscope discover --roce in the Soft-RoCE VM lab (lab/rxe/vm): a routed
// fabric of 2 leaves, 2 spines and 2 hosts per leaf (rxe_fabric 2 2 2),
// lldpd running in every leaf and host namespace with its own socket. One
// boot: every host's inventory and LLDP neighbours gathered over MPI into one
// snapshot (rank 0 writes it), the spines and their cables from traces
// between the hosts (--trace), one rank killed while it traces; checked
// against the cabling guest.sh built. Then two hosts' leaf ports swapped, a
// snapshot merged from per-host reports, and `validate --plan` (the plan
// written from the first snapshot) finds it.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "vm_run.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

/// Host name -> "leaf[port]" of its link, from a snapshot.
std::map<std::string, std::string> host_ports(const json& snap) {
    std::map<std::string, std::string> name_of;  // GUID -> description
    for (const json& n : snap["nodes"])
        name_of[n["guid"].get<std::string>()] = n["description"].get<std::string>();
    std::map<std::string, std::string> out;
    for (const json& n : snap["nodes"]) {
        if (n["type"] != "CA") continue;
        std::string host = n["description"].get<std::string>();
        host = host.substr(0, host.find(' '));
        out[host] = "";
        for (const json& p : n["ports"]) {
            if (!p.contains("peer") || p["peer"].is_null()) continue;
            out[host] = name_of[p["peer"]["guid"].get<std::string>()] + "[" +
                        std::to_string(p["peer"]["port"].get<int>()) + "]";
        }
    }
    return out;
}

TEST(LldpVm, RoceSnapshotFromLldpAndAMovedHostFoundByValidatePlan) {
    VmRun g = run_in_vm("lldp", R"SH(
rxe_init
rxe_fabric 2 2 2
L=$(mktemp -d /run/lldp.XXXXXX)
t0=$(date +%s.%N)
lldp_start "$L" l1 l2 a1 a2 b1 b2
ok=1
for h in a1 a2 b1 b2; do lldp_wait "$L" "$h" 'port\.ifname=p' 20 || ok=0; done
echo "lldp_ready=$ok"
echo "lldp_ready_s=$(echo "$(date +%s.%N) - $t0" | bc)"
lldp_show "$L" a1 > a1.lldp.txt
# One rank per host; each reads its own lldpd (the namespace's name is its
# hostname) and traces to one host under the other leaf. b2 probes with a
# 10 s timeout, so it is still tracing when it is killed (the others wait
# 300 ms); --enable-recovery keeps mpirun from killing the others with it.
# b2 is tracing once the routers' answers to its probes come in (ICMP time
# exceeded: nothing else in this run expires a TTL).
time_exceeded() {
    ip netns exec b2 awk '/^Icmp:/ { if (!c) { for (i = 1; i <= NF; i++) if ($i == "InTimeExcds") c = i } else print $c }' /proc/net/snmp
}
answers=$(time_exceeded)
t0=$(date +%s.%N)
FABSCOPE_MPIRUN_OPTIONS="--enable-recovery --timeout 100" fabric_mpirun_all sh -c "t=300ms; [ \$(hostname) = b2 ] && t=10s; exec $F discover --roce --mpi --trace --names /run/fabric.hosts --trace-timeout \$t --gather-timeout 8 --lldp-socket $L/\$(hostname).sock -o $PWD/roce.json" 2> discover.err &
job=$!
# Its probes wait up to 10 s for their answers, so once the first answer is
# in it is still tracing when killed; at most 30 s for that answer.
ok=0
end=$(($(date +%s) + 30))
while [ "$(date +%s)" -lt "$end" ]; do
    [ "$(time_exceeded)" -gt "$answers" ] && ok=1 && break
    sleep 0.1
done
echo "b2_tracing=$ok"
for p in $(ip netns pids b2); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = fabscope ] && kill -9 "$p" && echo "victim=$p"
done
t1=$(date +%s.%N)
wait $job
echo "discover_rc=$?"
echo "discover_s=$(echo "$(date +%s.%N) - $t0" | bc)"
echo "after_kill_s=$(echo "$(date +%s.%N) - $t1" | bc)"
cat discover.err
$F plan --from roce.json -o plan.yaml; echo "plan_rc=$?"
$F validate --plan plan.yaml --load roce.json -o clean.json 2> clean.err; echo "clean_rc=$?"
# a1 and a2 trade leaf ports: a1's cable now in l1's port 2, a2's in port 1.
leaf_swap_ports l1 pa1 pa2
ok=1
for h in a1 a2; do
    want=pa2; [ "$h" = a2 ] && want=pa1
    lldp_wait "$L" "$h" "port\.ifname=$want\$" 20 || ok=0
done
# The neighbour seen before the swap ages out (TTL 3 s).
end=$(($(date +%s) + 15))
while [ "$(date +%s)" -lt "$end" ]; do
    [ "$(lldp_show "$L" a1 | grep -c 'port\.ifname=')" = 1 ] && [ "$(lldp_show "$L" a2 | grep -c 'port\.ifname=')" = 1 ] && break
    sleep 0.2
done
echo "moved_ready=$ok"
for h in a1 a2 b1 b2; do
    in_host "$h" $F discover --roce --lldp-socket "$L/$h.sock" --host-report "$PWD/$h.host.json" || echo "report_failed=$h"
done
$F discover --roce --merge a1.host.json a2.host.json b1.host.json b2.host.json -o moved.json 2> moved.err
echo "merge_rc=$?"
$F validate --plan plan.yaml --load moved.json -o moved-validate.json 2> validate.err
echo "moved_rc=$?"
cat validate.err
cp "$L"/*.log .
lldp_stop "$L"
left=0
for f in "$L"/*.pid; do kill -0 "$(cat "$f")" 2>/dev/null && left=$((left + 1)); done
echo "lldpd_left=$left"
)SH",
                        std::chrono::seconds(240));
    std::printf("lldp VM: %.1f s wall; lldpd neighbours in %s s, MPI discover %s s\n", g.wall_s,
                g.value("lldp_ready_s").c_str(), g.value("discover_s").c_str());
    std::printf("%s\n", g.output.c_str());
    ASSERT_EQ(g.exit_code, 0);
    EXPECT_EQ(g.value("lldp_ready"), "1");
    EXPECT_EQ(g.value("b2_tracing"), "1");  // killed while it traces, not before
    EXPECT_FALSE(g.value("victim").empty());
    // The killed rank's traces are a finding in the snapshot; the run
    // ended by its deadline (8 s for the traces), not mpirun's 100 s.
    EXPECT_EQ(g.value("discover_rc"), "0");
    EXPECT_LT(std::stod(g.value("after_kill_s")), 30.0);
    EXPECT_NE(g.output.find("Fabric from RoCE hosts, LLDP and path traces"), std::string::npos);
    EXPECT_NE(g.output.find("LLDP: b2 eth0 -> l2 pb2 (port 2)"), std::string::npos);

    json snap = g.file("roce.json", "snapshot.schema.json");
    EXPECT_EQ(snap["source"]["method"], "roce-lldp-trace");
    std::set<std::string> switches;
    for (const json& n : snap["nodes"])
        if (n["type"] == "Switch") switches.insert(n["description"].get<std::string>());
    // Leaves from LLDP, spines from the traces (named by /run/fabric.hosts).
    EXPECT_EQ(switches, (std::set<std::string>{"l1", "l2", "s1", "s2"}));
    EXPECT_EQ(host_ports(snap),
              (std::map<std::string, std::string>{
                  {"a1", "l1[1]"}, {"a2", "l1[2]"}, {"b1", "l2[1]"}, {"b2", "l2[2]"}}));
    ASSERT_TRUE(snap.contains("traced"));
    std::set<std::string> cables;
    for (const json& c : snap["traced"]["cables"])
        cables.insert(c["a"].get<std::string>() + " <-> " + c["b"].get<std::string>());
    EXPECT_EQ(cables, (std::set<std::string>{"l1[3] <-> s1[1]", "l1[4] <-> s2[1]",
                                             "l2[3] <-> s1[2]", "l2[4] <-> s2[2]"}))
        << snap["traced"].dump(2);
    bool b2_missing = false;
    for (const json& f : snap["findings"])
        if (f["kind"] == "host_traces_missing" && f["evidence"]["rank"] == 3) b2_missing = true;
    EXPECT_TRUE(b2_missing) << snap["findings"].dump(2);
    ASSERT_TRUE(snap.contains("lldp"));
    EXPECT_EQ(snap["lldp"].size(), 4U);
    EXPECT_EQ(g.value("plan_rc"), "0");
    EXPECT_EQ(g.value("clean_rc"), "0");

    EXPECT_EQ(g.value("moved_ready"), "1");
    EXPECT_EQ(g.value("merge_rc"), "0");
    json moved = g.file("moved.json", "snapshot.schema.json");
    EXPECT_EQ(host_ports(moved),
              (std::map<std::string, std::string>{
                  {"a1", "l1[2]"}, {"a2", "l1[1]"}, {"b1", "l2[1]"}, {"b2", "l2[2]"}}));
    EXPECT_EQ(g.value("moved_rc"), "1");  // findings
    json v = g.file("moved-validate.json", "validation.schema.json");
    bool swapped_a1 = false;
    for (const json& f : v["findings"]) {
        if (f["kind"] == "cables_swapped" &&
            f["summary"].get<std::string>().find("a1") != std::string::npos)
            swapped_a1 = true;
    }
    EXPECT_TRUE(swapped_a1) << v["findings"].dump(2);
    EXPECT_EQ(g.value("lldpd_left"), "0");
    EXPECT_LT(g.wall_s, 120.0);
}

}  // namespace
}  // namespace fabscope::labtest
