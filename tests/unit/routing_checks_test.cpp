// The forwarding tables' credit loops, holes and balance, on fabrics whose
// tables are written here as a subnet manager would (D-mod-K on a leaf-spine,
// min-hop on a ring of switches, which is known to make credit loops).

#include "check/routing_checks.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "fake_fabric.h"
#include "model/thresholds.h"
#include "model/validation.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

std::map<std::string, std::vector<Finding>> by_kind(const std::vector<Finding>& fs) {
    std::map<std::string, std::vector<Finding>> out;
    for (const Finding& f : fs) out[f.kind].push_back(f);
    return out;
}

TEST(Routing, ADModKLeafSpineHasNoLoopNoHoleAndEvenUplinks) {
    Fabric f = testing::routed_leaf_spine({.spines = 4, .leaves = 4, .hosts_per_leaf = 8});
    const RoutingAnalysis a = analyse_routing(f);
    EXPECT_EQ(a.sources, 32u);
    EXPECT_EQ(a.destinations, 32u);
    EXPECT_GT(a.dependencies, 0u);
    EXPECT_TRUE(a.loops.empty());
    EXPECT_TRUE(a.holes.empty()) << a.holes.front().summary;
    size_t leaves = 0;
    for (const SwitchBalance& b : a.balance) {
        if (!b.leaf) continue;
        ++leaves;
        EXPECT_EQ(b.uplink_destinations, 24u);  // the 24 hosts under other leaves
        EXPECT_DOUBLE_EQ(b.uplink_spread, 1.0);
    }
    EXPECT_EQ(leaves, 4u);
    EXPECT_TRUE(routing_findings(f, a, 1.5).empty());
    EXPECT_EQ(routing_check_detail(a), fmt::format("32 host LIDs from 32 ports, {} dependencies "
                                                   "between switch cables: no credit loop; uplink "
                                                   "spread at most 1.0x",
                                                   a.dependencies));
}

TEST(Routing, MinHopOnARingOfSwitchesHasACreditLoopEachWay) {
    auto nodes = testing::switch_ring(5);
    testing::program_min_hop_routes(nodes);
    Fabric f = *Fabric::build(nodes);
    const RoutingAnalysis a = analyse_routing(f);
    ASSERT_EQ(a.loops.size(), 2u);  // clockwise and counter-clockwise
    for (const CreditLoop& l : a.loops) {
        EXPECT_EQ(l.lanes.size(), 5u);
        EXPECT_EQ(l.vl, 0);
        EXPECT_NE(l.example_source, 0u);
        EXPECT_NE(l.example_dlid, 0u);
    }
    auto found = by_kind(routing_findings(f, a, 1.5));
    ASSERT_EQ(found["credit_loop"].size(), 2u);
    const Finding& x = found["credit_loop"][0];
    EXPECT_EQ(x.severity, Severity::Error);
    EXPECT_EQ(x.where.size(), 10u);
    EXPECT_EQ(x.evidence["lanes"].size(), 5u);
    EXPECT_NE(x.summary.find("credit loop on VL 0 over 5 cables: ring"), std::string::npos)
        << x.summary;
    // Consecutive cables meet at a switch: each lane starts where the last ended.
    const auto& lanes = x.evidence["lanes"];
    for (size_t i = 0; i < lanes.size(); ++i) {
        const auto& next = lanes[(i + 1) % lanes.size()];
        EXPECT_EQ(lanes[i]["to"]["node"], next["from"]["node"]) << lanes.dump();
    }
    // Three switches: every route is one hop between switches, nothing waits on a chain.
    auto three = testing::switch_ring(3);
    testing::program_min_hop_routes(three);
    EXPECT_TRUE(analyse_routing(*Fabric::build(three)).loops.empty());
}

TEST(Routing, HolesAreNamedWithTheLidsTheyDrop) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    testing::add_dmodk_routes(nodes);
    Fabric clean = *Fabric::build(nodes);
    const Node* h4 = clean.find("h0004 HCA-1");
    ASSERT_NE(h4, nullptr);
    const Lid lid = h4->lid();
    testing::node_named(nodes, "spine01").lft[lid] = 255;  // no route
    testing::unplug(nodes, "leaf01", 4);                   // an uplink down, still in the table
    Fabric f = *Fabric::build(nodes);
    auto found = by_kind(routing_findings(f, analyse_routing(f), 1.5));
    ASSERT_FALSE(found["route_hole"].empty());
    std::map<std::string, const Finding*> by_hole;
    for (const Finding& x : found["route_hole"])
        by_hole[x.evidence["hole"].get<std::string>()] = &x;
    ASSERT_TRUE(by_hole.count("none"));
    EXPECT_NE(by_hole["none"]->summary.find("spine01 has no route for 1 LID in use: h0004"),
              std::string::npos)
        << by_hole["none"]->summary;
    // Both ends of the unplugged uplink still route into it.
    std::string down;
    for (const Finding& x : found["route_hole"])
        if (x.evidence["hole"] == "down") down += x.summary + "\n";
    EXPECT_NE(down.find("leaf01[4] sends"), std::string::npos) << down;
    EXPECT_NE(down.find("spine02[1] sends 2 LIDs in use out of a port whose link is down: h0001 "
                        "(LID 5), h0002 (LID 6)"),
              std::string::npos)
        << down;
}

TEST(Routing, AnUplinkThatTookTheOthersRoutesIsNamedWithItsShare) {
    auto nodes = testing::leaf_spine_nodes({.spines = 4, .leaves = 2, .hosts_per_leaf = 4});
    testing::add_dmodk_routes(nodes);
    // leaf01 sends everything up through port 5 (its first uplink), as a
    // reroute that piled routes onto one uplink would.
    Node& leaf = testing::node_named(nodes, "leaf01");
    for (uint8_t& port : leaf.lft)
        if (port >= 6 && port <= 8) port = 5;
    Fabric f = *Fabric::build(nodes);
    auto found = by_kind(routing_findings(f, analyse_routing(f), 1.5));
    ASSERT_EQ(found["route_imbalance"].size(), 1u);
    const Finding& x = found["route_imbalance"][0];
    EXPECT_EQ(x.where[0].port, 5);
    EXPECT_DOUBLE_EQ(x.evidence["spread"].get<double>(), 4.0);
    EXPECT_EQ(x.evidence["destinations"], 4);
    EXPECT_NE(x.summary.find("carries 4 of the 4 destinations leaf01 routes up (100 %), 4.00x"),
              std::string::npos)
        << x.summary;
    // A higher limit tolerates it.
    EXPECT_TRUE(by_kind(routing_findings(f, analyse_routing(f), 5.0))["route_imbalance"].empty());
    auto t = parse_thresholds("fabscope_thresholds: 1\nrouting: {imbalance: 5}\n", "t");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_DOUBLE_EQ(t->routing.imbalance, 5.0);
    EXPECT_FALSE(parse_thresholds("fabscope_thresholds: 1\nrouting: {imbalance: 0.5}\n", "t"));
}

}  // namespace
}  // namespace fabscope
