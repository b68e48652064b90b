// fabscope mesh run in the Soft-RoCE VM lab (lab/rxe/vm) on a routed
// leaf-spine: 3 leaves of 3 hosts, 2 spines, ECMP on the L4 hash (rxe_fabric
// in lab/rxe/guest.sh), one leaf-spine cable shaped both ways with tbf.
// Debian's Open MPI launches one rank in each host namespace (fabric_mpirun,
// orted started through lab/rxe/netns-rsh); the ranks exchange their QPs over
// MPI, measure real RoCEv2 WRITE bandwidth between rxe devices, and each
// flow's sender traces the flow's own path. One boot: cover (planned from
// traced paths, flows steered by flow label, then adaptive rounds), then
// all-pairs with one rank killed mid-run, then cover again launched by
// agents (`perf serve` in every host, a coordinator relaying the ranks'
// messages) with one agent killed mid-run; all three must name the shaped
// cable. Last, the cable restored and one host's leaf port shaped instead,
// cover launched by Slurm (srun --mpi=pmix; slurm_start in guest.sh) must
// name that host. (Four runs: the Slurm launcher and the host fault share
// one, for CI's time; they had a run each.) A ring all-reduce (--pattern
// ring) rides along twice: through the agents (c2's gone) and under srun.
//
// Three leaves, not two: with two, every flow that crosses l1 -> s2 also
// crosses s2 -> l2 (and the reverse), so no measurement can tell the cable
// l1-s2 from s2-l2 (tests/unit/trace_fabric_test.cpp shows the report then
// names both lanes as one suspect).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "lab_harness.h"
#include "vm_run.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

constexpr const char* kShaped = "l1[10.9.12.0] <-> s2[10.9.12.1]";

void print_table(const char* what, const json& doc) {
    std::printf("%s: pattern %s, %zu rounds (%d rounds done), coverage %d of %d lanes\n", what,
                doc["pattern"].get<std::string>().c_str(), doc["rounds"].size(),
                doc["rounds_done"].get<int>(), doc["fabric"]["coverage"]["crossed"].get<int>(),
                doc["fabric"]["coverage"]["lanes"].get<int>());
    for (const json& l : doc["fabric"]["lanes"]) {
        std::printf("  %-34s flows %2d slow %2d\n", l["name"].get<std::string>().c_str(),
                    l["flows"].get<int>(), l["slow"].get<int>());
    }
    for (const json& s : doc["link_suspects"]) {
        std::printf("  suspect %s: %d of %d slow, %zu healthy, mean ratio %.2f\n",
                    s["name"].get<std::string>().c_str(), s["slow_flows"].get<int>(),
                    s["total_flows"].get<int>(), s["healthy"].size(),
                    s["mean_ratio"].get<double>());
    }
}

/// The run named the shaped cable first; all-pairs in both directions. A
/// cover run crosses each direction with few flows (3 or 4 here), and when
/// they share a sender the report names "that lane or the sender", not the
/// lane: seen once in CI for one direction, so a cover must name at least one.
void expect_shaped_cable(const json& doc, const std::string& top_line) {
    ASSERT_FALSE(doc["cable_suspects"].empty()) << doc["link_suspects"].dump();
    const json& top = doc["cable_suspects"][0];
    EXPECT_EQ(top["name"], kShaped) << doc["cable_suspects"].dump();
    if (doc["pattern"] == "cover")
        EXPECT_GE(top["directions"].size(), 1u) << top.dump();
    else
        EXPECT_EQ(top["directions"].size(), 2u) << top.dump();
    EXPECT_EQ(top_line.rfind(fmt::format("suspect: cable {}", kShaped), 0), 0u) << top_line;
}

/// Whether a lane's name is the shaped cable l1 <-> s2, either way. A traced
/// lane names an end's address only where a trace saw that end answer (a run
/// that crossed the cable one way only has "s2 -> l1[10.9.12.0]"), so the
/// lane is matched by its routers: l1 and s2 share one cable in this fabric.
bool on_shaped_cable(const std::string& lane) {
    std::string routers;
    bool in_address = false;
    for (char c : lane) {
        if (c == '[') in_address = true;
        if (!in_address) routers += c;
        if (c == ']') in_address = false;
    }
    return routers == "l1 -> s2" || routers == "s2 -> l1";
}

/// Whether a flow of a mesh report crosses the shaped cable.
bool crosses_shaped_cable(const json& doc, const json& flow) {
    for (const json& l : flow["lanes"]) {
        for (const json& lane : doc["fabric"]["lanes"]) {
            if (lane["lane"] == l && on_shaped_cable(lane["name"].get<std::string>())) return true;
        }
    }
    return false;
}

void expect_agents_ring(const VmRun& g) {
    // The ring through agents: the coordinator in no edge, c2's dead agent
    // left out; if an edge crosses the shaped cable, the slowest does.
    json ring = g.file("agents_ring.json", "mesh-run.schema.json");
    EXPECT_EQ(ring["status"], "complete") << g.output;
    EXPECT_EQ(ring["launcher"], "fabscope agents (mesh order 1)");
    EXPECT_EQ(ring["ranks"][0]["coordinator"], true);
    EXPECT_EQ(ring["ring"]["order"].size(), 8u) << ring["ring"].dump();
    ASSERT_TRUE(ring["ring"]["sizes"][0]["measured"].get<bool>()) << ring["ring"].dump();
    bool any_crosses = false;
    for (const json& f : ring["flows"]) {
        EXPECT_NE(f["src_host"], "c2");
        any_crosses |= crosses_shaped_cable(ring, f);
    }
    const json& slowest = ring["ring"]["slowest_edge"];
    std::printf("agents ring: %s edge crosses the shaped cable; slowest edge %s\n",
                any_crosses ? "an" : "no", slowest.dump().c_str());
    if (!any_crosses) return;
    bool crosses = false;
    for (const json& lane : slowest["path"]) crosses |= on_shaped_cable(lane.get<std::string>());
    EXPECT_TRUE(crosses) << slowest.dump();
    EXPECT_EQ(g.value("agents_ring_rc"), "1");
}

TEST(MeshVm, MpirunSrunAndAgentsOnALeafSpineNameTheShapedCableAndOutliveAKilledRank) {
    VmRun g = run_in_vm("mesh", R"SH(
rxe_init
rxe_fabric 3 2 3
H=b1,a1,c1,b2,a2,c2,b3,a3,c3
# The cable l1 <-> s2, both ways, well below what a flow gets here (1 MB/s);
# a short queue (200 ms), so trace probes through it answer within 300 ms.
impair_link l1 s2 tbf rate 8mbit burst 32kbit latency 200ms
t0=$(date +%s.%N)
fabric_mpirun $H $F mesh run --names /run/fabric.hosts -t 4 --pattern cover -D 500ms \
    --warmup 150ms --step-timeout 5s -o cover.json 2> cover.err
echo "cover_rc=$?"
echo "cover_s=$(echo "$(date +%s.%N) - $t0" | bc)"
echo "cover_top=$(grep -m1 '^suspect:' cover.err)"
grep -E '^(cover|paths):' cover.err
# All pairs; c2's rank is killed once rank 0 says round 5 is done;
# --enable-recovery keeps mpirun from killing the others with it.
t0=$(date +%s.%N)
FABSCOPE_MPIRUN_OPTIONS="--enable-recovery --timeout 200" fabric_mpirun $H $F mesh run \
    --names /run/fabric.hosts -t 4 -D 300ms --warmup 100ms --step-timeout 5s -o all.json 2> all.err &
job=$!
for i in $(seq 1 1200); do grep -q 'round 5/' all.err 2>/dev/null && break; sleep 0.1; done
for p in $(ip netns pids c2); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = fabscope ] && kill -9 "$p" && echo "victim=$p"
done
t1=$(date +%s.%N)
wait $job
echo "all_rc=$?"
echo "all_s=$(echo "$(date +%s.%N) - $t0" | bc)"
echo "after_kill_s=$(echo "$(date +%s.%N) - $t1" | bc)"
echo "all_top=$(grep -m1 '^suspect:' all.err)"
grep -E '^paths:' all.err
# Agents instead of MPI: perf serve in every host, the coordinator in b1's
# namespace (rank 0: no device, no pair); c2's agent is killed once round 1
# is done. The agents are stopped by their recorded PIDs, whatever happened.
agents_start agents $H $F perf serve --allow 10.0.0.0/8
agents_wait agents 'listening on'
echo "agents_up=$?"
t0=$(date +%s.%N)
in_host b1 $F mesh run --hosts agents/agents.txt --names /run/fabric.hosts -t 4 --pattern cover \
    -D 500ms --warmup 150ms --step-timeout 5s -o agents.json 2> agents.err &
job=$!
for i in $(seq 1 1200); do grep -q 'round 1/' agents.err 2>/dev/null && break; sleep 0.1; done
kill -9 "$(cat agents/c2.pid)" && echo "agent_victim=$(cat agents/c2.pid)"
t1=$(date +%s.%N)
wait $job
echo "agents_rc=$?"
echo "agents_s=$(echo "$(date +%s.%N) - $t0" | bc)"
echo "agents_after_kill_s=$(echo "$(date +%s.%N) - $t1" | bc)"
echo "agents_top=$(grep -m1 '^suspect:' agents.err)"
# A ring all-reduce through the same agents (c2's is gone: left out).
in_host b1 $F mesh run --hosts agents/agents.txt --names /run/fabric.hosts --pattern ring \
    --sizes 128K -n 2 -w 1 --step-timeout 5s -o agents_ring.json 2> agents_ring.err
echo "agents_ring_rc=$?"
agents_stop agents
grep -E '^(mesh run|ring|finding):' agents_ring.err
grep -E '^(mesh run|cover|paths|finding):' agents.err
# A host's cable instead of a leaf-spine one: what a2 receives, shaped on its
# leaf's port. The cover, launched by Slurm this time (slurmctld in b1, a
# slurmd in every host, srun --mpi=pmix wiring the ranks through PMIx: no
# mpirun, no orted; the daemons stopped by their recorded PIDs, whatever
# happened), must test a2 (and every other host) and name it.
unimpair_link l1 s2
impair_host_port a2 tbf rate 8mbit burst 32kbit latency 200ms
slurm_start /tmp/slurm $H
echo "slurm_up=$?"
t0=$(date +%s.%N)
slurm_in /tmp/slurm env OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=eth0 \
    timeout 300 srun -N 9 --ntasks-per-node=1 --mpi=pmix --chdir="$PWD" \
    $F mesh run --names /run/fabric.hosts -t 4 --pattern cover -D 500ms --warmup 150ms \
    --step-timeout 5s -o srun.json 2> srun.err
echo "srun_rc=$?"
echo "srun_s=$(echo "$(date +%s.%N) - $t0" | bc)"
echo "srun_top=$(grep -m1 '^suspect:' srun.err)"
# And a ring all-reduce under srun: the edge into a2 is the slow one.
slurm_in /tmp/slurm env OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=eth0 \
    timeout 300 srun -N 9 --ntasks-per-node=1 --mpi=pmix --chdir="$PWD" \
    $F mesh run --names /run/fabric.hosts --pattern ring --sizes 256K -n 2 -w 1 \
    --step-timeout 5s -o srun_ring.json 2> srun_ring.err
echo "srun_ring_rc=$?"
slurm_stop /tmp/slurm
grep -E '^(mesh run|ring):' srun_ring.err
grep -E '^(mesh run|srun|suspect|cover|paths):' srun.err
)SH",
                        std::chrono::seconds(600));
    ASSERT_EQ(g.exit_code, 0);
    std::printf(
        "mesh VM: %.1f s wall; cover run %s s, all-pairs run %s s, agents run %s s, srun cover "
        "%s s\n",
        g.wall_s, g.value("cover_s").c_str(), g.value("all_s").c_str(), g.value("agents_s").c_str(),
        g.value("srun_s").c_str());
    std::printf("cover top: %s\nall-pairs top: %s\nagents top: %s\n", g.value("cover_top").c_str(),
                g.value("all_top").c_str(), g.value("agents_top").c_str());

    // cover: planned from the traces, every lane of the fabric crossed, the
    // shaped cable named; exit 1 for the suspect.
    json cover = g.file("cover.json", "mesh-run.schema.json");
    print_table("cover", cover);
    EXPECT_EQ(g.value("cover_rc"), "1");
    EXPECT_EQ(cover["status"], "complete");
    EXPECT_EQ(cover["pattern"], "cover");
    EXPECT_EQ(cover["fabric"]["switches"].size(), 5u);
    EXPECT_EQ(cover["fabric"]["coverage"]["lanes"], 12);
    EXPECT_EQ(cover["fabric"]["coverage"]["crossed"], 12);
    size_t planned = 0;
    for (const json& r : cover["rounds"]) planned += r["adaptive"].get<bool>() ? 0 : 1;
    EXPECT_LE(planned, 8u);
    EXPECT_LT(cover["rounds"].size(), 9u * 2);  // fewer than all-pairs' steps
    for (const json& f : cover["flows"]) EXPECT_TRUE(f["measured"].get<bool>()) << f.dump();
    expect_shaped_cable(cover, g.value("cover_top"));

    // all-pairs: every flow traced where a router is between; the killed rank
    // is a finding; the run still ended, with rank 0's report.
    json all = g.file("all.json", "mesh-run.schema.json");
    print_table("all-pairs", all);
    EXPECT_EQ(all["status"], "complete");
    EXPECT_EQ(all["rounds"].size(), 9u);
    ASSERT_EQ(all["flows"].size(), 72u);
    EXPECT_FALSE(g.value("victim").empty());
    EXPECT_LT(std::stod(g.value("after_kill_s")), 60.0);
    bool named = false;
    for (const json& f : all["findings"]) {
        if (f["kind"] == "rank-gone" && f["host"] == "c2") named = true;
    }
    EXPECT_TRUE(named) << all["findings"].dump();
    size_t traced = 0;
    size_t failed = 0;
    size_t through_shaped = 0;
    size_t slow_with_loss = 0;
    size_t healthy_with_loss = 0;
    for (const json& f : all["flows"]) {
        bool with_c2 = f["src_host"] == "c2" || f["dst_host"] == "c2";
        if (with_c2) continue;
        EXPECT_TRUE(f["measured"].get<bool>()) << f.dump();
        // Both ends read their counters around the flow; the shaper's drops
        // are retransmissions there (rxe), and the loss detector says so.
        EXPECT_TRUE(f["counters"].contains("local")) << f.dump();
        EXPECT_TRUE(f["counters"].contains("remote")) << f.dump();
        bool loss = false;
        for (const json& c : f["congestion"]) loss = loss || c["kind"] == "loss_on_lossless_class";
        (f["slow"].get<bool>() ? slow_with_loss : healthy_with_loss) += loss;
        // A flow through the shaped cable may time out (RC retries behind
        // the shaper; 12 flows in one CI run): it then counts as slow,
        // ratio 0. No other flow may fail.
        const bool shaped = crosses_shaped_cable(all, f);
        through_shaped += shaped;
        // A trace through the shaper may lose its probe there too and stop
        // short of the spine (seen in CI: a2 -> c1 traced to l1 only).
        const bool cut_short = f["path"].is_object() && f["path"]["hops"].size() < 3;
        if (!f["ok"].get<bool>()) {
            ++failed;
            EXPECT_TRUE(f["slow"].get<bool>()) << f.dump();
            EXPECT_TRUE(shaped || cut_short) << f.dump();
        }
        bool same_leaf = f["src_host"].get<std::string>()[0] == f["dst_host"].get<std::string>()[0];
        if (!same_leaf) {
            EXPECT_TRUE(f["path"].is_object()) << f.dump();
            traced += f["path"].is_object();
        }
    }
    EXPECT_EQ(traced, 42u);  // 8 ranks, 6 of the 7 others on another leaf, minus c2's
    EXPECT_GT(through_shaped, 0u) << failed;
    std::printf("all-pairs: loss found in %zu slow flows and %zu healthy ones\n", slow_with_loss,
                healthy_with_loss);
    EXPECT_GT(slow_with_loss, 0u);
    bool congestion_finding = false;
    for (const json& f : all["findings"]) congestion_finding |= f["kind"] == "congestion";
    EXPECT_TRUE(congestion_finding) << all["findings"].dump();
    expect_shaped_cable(all, g.value("all_top"));

    // Agents: the same cover, launched by `perf serve` on every host and one
    // coordinator; the killed agent is a finding; the run ended in time.
    json agents = g.file("agents.json", "mesh-run.schema.json");
    print_table("agents (cover)", agents);
    EXPECT_EQ(g.value("agents_up"), "0");
    EXPECT_EQ(g.value("agents_rc"), "1");
    EXPECT_EQ(agents["status"], "complete");
    EXPECT_EQ(agents["pattern"], "cover");
    EXPECT_EQ(agents["launcher"], "fabscope agents (mesh order 1)");
    ASSERT_EQ(agents["ranks"].size(), 10u);  // the coordinator and 9 agents
    EXPECT_EQ(agents["ranks"][0]["coordinator"], true);
    EXPECT_EQ(agents["ranks"][1]["host"], "b1");
    EXPECT_EQ(agents["fabric"]["coverage"]["lanes"], 12);
    // The lanes only c2's planned flows crossed are crossed again by the adaptive rounds.
    EXPECT_EQ(agents["fabric"]["coverage"]["crossed"], 12);
    EXPECT_FALSE(g.value("agent_victim").empty());
    EXPECT_LT(std::stod(g.value("agents_s")), 45.0);
    bool agent_named = false;
    for (const json& f : agents["findings"]) {
        if (f["kind"] == "rank-gone" && f["host"] == "c2") agent_named = true;
    }
    EXPECT_TRUE(agent_named) << agents["findings"].dump();
    for (const json& f : agents["flows"]) {
        if (f["src_host"] == "c2" || f["dst_host"] == "c2") continue;
        EXPECT_TRUE(f["measured"].get<bool>()) << f.dump();
    }
    expect_shaped_cable(agents, g.value("agents_top"));
    expect_agents_ring(g);

    // srun --mpi=pmix with the host port shaped instead: the ranks started by
    // Slurm's slurmds, the report says which job and step ran it; every host
    // sent and received in the planned rounds, and the suspect is a2 (or its
    // cable, the leaf port named), never a cable between switches. srun's
    // exit code is its ranks' highest: rank 0's 1 for the suspect.
    json host = g.file("srun.json", "mesh-run.schema.json");
    print_table("srun, host port shaped (cover)", host);
    std::printf("srun: launcher \"%s\", %s s, top: %s\n",
                host["launcher"].get<std::string>().c_str(), g.value("srun_s").c_str(),
                g.value("srun_top").c_str());
    EXPECT_EQ(g.value("slurm_up"), "0");
    EXPECT_EQ(g.value("srun_rc"), "1");
    EXPECT_EQ(host["status"], "complete");
    EXPECT_EQ(host["pattern"], "cover");
    EXPECT_EQ(host["ranks"].size(), 9u);
    EXPECT_NE(host["launcher"].get<std::string>().find(", Slurm job "), std::string::npos)
        << host["launcher"];
    EXPECT_EQ(host["fabric"]["coverage"]["crossed"], 12);
    for (const json& f : host["flows"]) EXPECT_TRUE(f["measured"].get<bool>()) << f.dump();
    EXPECT_EQ(host["fabric"]["coverage"]["senders"], 9);
    EXPECT_EQ(host["fabric"]["coverage"]["receivers"], 9);
    size_t planned_rounds = 0;
    for (const json& r : host["rounds"]) planned_rounds += r["adaptive"].get<bool>() ? 0 : 1;
    std::set<std::string> planned_senders, planned_receivers;
    for (const json& f : host["flows"]) {
        if (f["round"].get<size_t>() > planned_rounds) continue;  // 1-based
        planned_senders.insert(f["src_host"].get<std::string>());
        planned_receivers.insert(f["dst_host"].get<std::string>());
    }
    std::printf("host cover: %zu planned rounds, %zu in all\n", planned_rounds,
                host["rounds"].size());
    EXPECT_EQ(planned_senders.size(), 9u);  // the plan itself, before any adaptive round
    EXPECT_EQ(planned_receivers.size(), 9u);
    ASSERT_FALSE(host["cable_suspects"].empty()) << host["link_suspects"].dump();
    EXPECT_EQ(host["cable_suspects"][0]["host"], "a2") << host["cable_suspects"].dump();
    // Not confused with a cable between switches: no switch lane is blamed
    // for a flow to a2, and one named at all is milder than a2. The emulated
    // VM's noise slows a few other flows to about half the median now and
    // then (seen in CI: 4 of 4 through l2 -> s2 at 0.43 beside a2 at 0.25;
    // 3 of 4 through l1 -> s2 at 0.51 beside a2 at 0.10), which the
    // localization rightly reports as what it measured.
    double a2_sum = 0;
    int a2_slow = 0;
    for (const json& f : host["flows"]) {
        if (f["dst_host"] != "a2" || !f["slow"].get<bool>()) continue;
        a2_sum += f["ratio"].get<double>();
        ++a2_slow;
    }
    ASSERT_GT(a2_slow, 0) << host["flows"].dump();
    const double a2_ratio = a2_sum / a2_slow;
    for (const json& c : host["cable_suspects"]) {
        if (c.contains("host")) continue;
        for (const json& l : host["link_suspects"]) {
            if (std::find(c["directions"].begin(), c["directions"].end(), l["name"]) ==
                c["directions"].end())
                continue;
            std::printf("a switch lane named beside a2 (%.2f): %s at %.2f\n", a2_ratio,
                        l["name"].get<std::string>().c_str(), l["mean_ratio"].get<double>());
            EXPECT_GT(l["mean_ratio"].get<double>(), a2_ratio) << l.dump();
            for (const json& fi : l["evidence"])
                EXPECT_NE(host["flows"][fi.get<size_t>()]["dst_host"], "a2") << l.dump();
        }
    }
    EXPECT_EQ(g.value("srun_top").rfind("suspect: host a2 (receiving) or its cable from l1[", 0),
              0u)
        << g.value("srun_top");

    // The ring under srun, in rank order (Slurm's: a1, a2, ...): the edge into
    // a2 is its slow one. Nine ranks spinning on the VM's two CPUs leave every
    // edge near the shaper's rate (1.6 MB/s against its 1), so the cost is
    // modest here; the RingVm test has the cost of a cable.
    json ring = g.file("srun_ring.json", "mesh-run.schema.json");
    EXPECT_EQ(g.value("srun_ring_rc"), "1");  // the slow edge is a finding
    EXPECT_EQ(ring["status"], "complete");
    EXPECT_EQ(ring["pattern"], "ring");
    EXPECT_NE(ring["launcher"].get<std::string>().find(", Slurm job "), std::string::npos);
    ASSERT_TRUE(ring["ring"]["sizes"][0]["measured"].get<bool>()) << ring["ring"].dump();
    const json& slowest = ring["ring"]["slowest_edge"];
    std::printf("srun ring: busbw %.5f GB/s, slowest edge %s\n",
                ring["ring"]["sizes"][0]["busbw_GBps"].get<double>(), slowest.dump().c_str());
    EXPECT_EQ(slowest["dst_host"], "a2") << slowest.dump();
    EXPECT_LT(slowest["gbps"].get<double>(), 0.6 * slowest["median_gbps"].get<double>())
        << slowest.dump();
    EXPECT_GT(slowest["cost"].get<double>(), 0.1) << slowest.dump();
}

}  // namespace
}  // namespace fabscope::labtest
