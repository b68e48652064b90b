// A mesh run's switch evidence read through the MAD engine
// (mesh/switch_pma) from the fake fabric: only the switch-to-switch
// ports, also when the snapshot was swept without counters; a switch that
// does not answer leaves its ports failed; what two readings make of a lane.

#include <gtest/gtest.h>

#include <algorithm>

#include "fake_fabric.h"
#include "mesh/switch_pma.h"
#include "test_fabrics.h"

namespace fabscope::perf {
namespace {

using namespace std::chrono_literals;
using fabscope::testing::FakeClock;
using fabscope::testing::FakeFabric;

/// A routed leaf-spine whose ports answer the PMA with counters (`before`,
/// then `after` with spine02's port to leaf01 counting symbol errors), and
/// the snapshot the run loaded: the same fabric swept with --no-counters.
struct Rig {
    std::vector<Node> nodes;
    Fabric snapshot;
    Fabric before;
    Fabric after;
    FakeClock clock;

    Rig()
        : nodes(fabscope::testing::leaf_spine_nodes(
              {.spines = 2, .leaves = 2, .hosts_per_leaf = 2})) {
        fabscope::testing::add_dmodk_routes(nodes);
        snapshot = *Fabric::build(nodes);
        PortCounters pc;
        pc.set(Counter::SymbolErrorCounter, 7);
        pc.set(Counter::PortXmitWait, 100);
        for (Node& n : nodes)
            for (Port& p : n.ports) p.counters = pc;
        before = *Fabric::build(nodes);
        Port* bad = spine_port_to("leaf01");
        bad->counters->set(Counter::SymbolErrorCounter, 5007);
        after = *Fabric::build(nodes);
    }
    Port* spine_port_to(const std::string& leaf) {
        Node& spine = fabscope::testing::node_named(nodes, "spine02");
        const Guid to = fabscope::testing::node_named(nodes, leaf).guid;
        for (Port& p : spine.ports)
            if (p.peer && p.peer->node == to) return &p;
        ADD_FAILURE() << "spine02 has no cable to " << leaf;
        return nullptr;
    }
    SwitchCounterRead read(const Fabric& answering) {
        const Node& h = nodes.front();
        FakeFabric fake(answering, h.guid, h.ports.front().num, clock);
        clock.advance(1s);
        return read_switch_link_counters(fake, clock, snapshot, EngineOptions{});
    }
    Lane lane_into_leaf01() const {
        for (Lane l : fabric_lanes(snapshot)) {
            if (describe_lane(snapshot, l).rfind("spine02[", 0) == 0 &&
                describe_lane(snapshot, l).find("-> leaf01[") != std::string::npos)
                return l;
        }
        ADD_FAILURE() << "no lane spine02 -> leaf01";
        return 0;
    }
};

TEST(MeshSwitchPma, OnlyTheSwitchToSwitchPortsAreReadEvenWhenTheSweepReadNone) {
    Rig rig;
    for (const Node& n : rig.snapshot.nodes())
        for (const Port& p : n.ports) ASSERT_FALSE(p.counters);  // --no-counters
    SwitchCounterRead r = rig.read(rig.before);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.failed.empty());
    const auto wanted = switch_link_ports(rig.snapshot);
    EXPECT_EQ(wanted.size(), 8u);  // 2 leaves x 2 spines, both ends
    ASSERT_EQ(r.ports.size(), wanted.size());
    for (const auto& [port, counters] : r.ports) {
        EXPECT_EQ(wanted.count(port), 1u);
        EXPECT_EQ(counters.get(Counter::SymbolErrorCounter), 7u);
    }
}

TEST(MeshSwitchPma, TwoReadingsShowWhatTheLaneCountedAndASilentSwitchIsFailed) {
    Rig rig;
    SwitchCounters c;
    c.before = rig.read(rig.before);
    c.after = rig.read(rig.after);
    const Lane lane = rig.lane_into_leaf01();
    auto e = lane_port_evidence(rig.snapshot, lane, c);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].name.rfind("spine02[", 0), 0u) << e[0].name;
    EXPECT_TRUE(e[0].sends);
    EXPECT_EQ(port_events_line(e[0]), "SymbolErrorCounter +5000");
    EXPECT_EQ(port_events_line(e[1]), "");

    // spine01 stops answering: its ports are failed, none is dropped.
    const Node& h = rig.nodes.front();
    FakeFabric fake(rig.after, h.guid, h.ports.front().num, rig.clock);
    fake.behaviour(fabscope::testing::node_named(rig.nodes, "spine01").guid).silent = true;
    EngineOptions quick;
    quick.timeout = 20ms;
    quick.retries = 0;
    SwitchCounterRead r = read_switch_link_counters(fake, rig.clock, rig.snapshot, quick);
    const Guid spine01 = fabscope::testing::node_named(rig.nodes, "spine01").guid;
    const auto on_spine01 = std::count_if(r.failed.begin(), r.failed.end(),
                                          [&](PortRef p) { return p.node == spine01; });
    EXPECT_EQ(on_spine01, 2);  // one cable to each leaf
    EXPECT_EQ(r.ports.size() + r.failed.size(), 8u);
    for (const auto& [port, counters] : r.ports) EXPECT_NE(port.node, spine01);
}

}  // namespace
}  // namespace fabscope::perf
