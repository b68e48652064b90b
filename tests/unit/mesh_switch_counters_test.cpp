// What two readings of the switch ports say about one lane of a mesh run
// (mesh/switch_counters): which ports, which side, and the counters
// that were cleared, stuck at their top, or never read.

#include <gtest/gtest.h>

#include "mesh/switch_counters.h"
#include "test_fabrics.h"

namespace fabscope::perf {
namespace {

struct TwoLeaves {
    Fabric f = testing::routed_leaf_spine({.spines = 1, .leaves = 2, .hosts_per_leaf = 1});
    Lane up = fabric_lanes(f).front();

    PortRef sender() const {
        const Link& l = f.links()[link_of_lane(up)];
        return (up & 1U) == 0 ? l.a : l.b;
    }
    PortRef receiver() const {
        const Link& l = f.links()[link_of_lane(up)];
        return (up & 1U) == 0 ? l.b : l.a;
    }
    static PortCounters reading(uint64_t symbols, uint64_t wait, uint64_t data) {
        PortCounters c;
        c.set(Counter::SymbolErrorCounter, symbols);
        c.set(Counter::PortXmitWait, wait);
        c.set(Counter::PortXmitData, data);
        return c;
    }
};

TEST(MeshSwitchCounters, TheSwitchToSwitchPortsAreWhatIsRead) {
    TwoLeaves t;
    // Two leaves, one spine: two cables, four ports; no host port.
    const auto ports = switch_link_ports(t.f);
    EXPECT_EQ(ports.size(), 4u);
    for (PortRef p : ports) EXPECT_EQ(t.f.node(p.node)->type, NodeType::Switch);
}

TEST(MeshSwitchCounters, ARiseIsEvidenceAndAClearedOrSaturatedCounterIsSaidSo) {
    TwoLeaves t;
    SwitchCounters c;
    c.before = SwitchCounterRead{};
    c.after = SwitchCounterRead{};
    c.before->ports[t.sender()] = TwoLeaves::reading(10, 100, 5000);
    c.after->ports[t.sender()] = TwoLeaves::reading(3, 0xffffffff, 9000);  // cleared; wait full
    c.before->ports[t.receiver()] = TwoLeaves::reading(0, 0, 0);
    c.after->ports[t.receiver()] = TwoLeaves::reading(0, 0, 0);
    auto e = lane_port_evidence(t.f, t.up, c);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_TRUE(e[0].sends);
    EXPECT_FALSE(e[1].sends);
    EXPECT_EQ(e[0].name, describe(t.f, t.sender()));
    EXPECT_EQ(e[0].cleared, std::vector<std::string>{"SymbolErrorCounter"});
    EXPECT_EQ(e[0].changes.at("SymbolErrorCounter"), 3u);  // a lower bound
    EXPECT_EQ(e[0].saturated, std::vector<std::string>{"PortXmitWait"});
    // Data is a change, not an event.
    EXPECT_EQ(e[0].changes.at("PortXmitData"), 4000u);
    EXPECT_EQ(port_events_line(e[0]), "PortXmitWait +4294967195, SymbolErrorCounter +3");
    EXPECT_TRUE(e[1].changes.empty());
    EXPECT_EQ(port_events_line(e[1]), "");
    EXPECT_EQ(switch_ports_phrase(e), "its switch ports counted " + e[0].name +
                                          " (sending) PortXmitWait +4294967195, "
                                          "SymbolErrorCounter +3");
    auto j = port_evidence_json(e);
    EXPECT_EQ(j[0]["side"], "sends");
    EXPECT_EQ(j[0]["saturated"][0], "PortXmitWait");
    EXPECT_FALSE(j[0].contains("unread"));
}

TEST(MeshSwitchCounters, APortThatDidNotAnswerIsUnreadAndNoReadingIsNoEvidence) {
    TwoLeaves t;
    SwitchCounters c;
    c.before = SwitchCounterRead{};
    c.after = SwitchCounterRead{};
    c.before->ports[t.sender()] = TwoLeaves::reading(0, 0, 0);
    c.before->ports[t.receiver()] = TwoLeaves::reading(0, 0, 0);
    c.after->ports[t.sender()] = TwoLeaves::reading(0, 0, 0);
    c.after->failed.push_back(t.receiver());
    auto e = lane_port_evidence(t.f, t.up, c);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[1].unread, describe(t.f, t.receiver()) + " did not answer the PMA");
    EXPECT_EQ(port_evidence_json(e)[1]["unread"], e[1].unread);
    EXPECT_EQ(switch_ports_phrase(e),
              "its switch ports counted no errors or waits (" + e[1].unread + ")");
    e[0].unread = "x[1] was not read";
    EXPECT_EQ(switch_ports_phrase(e),
              "its switch ports were not read (x[1] was not read; " + e[1].unread + ")");

    // A reading that failed as a whole, or was never made, gives nothing.
    c.after = SwitchCounterRead{{}, {}, "interrupted"};
    EXPECT_EQ(c.why_not(), "interrupted");
    c.skipped = "not asked (--no-switch-counters)";
    EXPECT_EQ(c.why_not(), "not asked (--no-switch-counters)");
    c.skipped.clear();
    EXPECT_TRUE(lane_port_evidence(t.f, t.up, c).empty());
    c.after.reset();
    EXPECT_EQ(c.why_not(), "not read");
    EXPECT_TRUE(lane_port_evidence(t.f, t.up, c).empty());
}

}  // namespace
}  // namespace fabscope::perf
