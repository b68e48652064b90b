#include "model/fabric.h"

#include <gtest/gtest.h>

#include "model/fabric_graph.h"
#include "model/tiers.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using testing::leaf_spine;
using testing::leaf_spine_nodes;
using testing::node_named;

TEST(Fabric, DerivesOneLinkPerCable) {
    Fabric f = leaf_spine({.spines = 2, .leaves = 4, .hosts_per_leaf = 4, .links_per_pair = 2});
    EXPECT_EQ(f.nodes().size(), 16u + 4u + 2u);
    EXPECT_EQ(f.links().size(), 16u + 4u * 2u * 2u);
    for (const Link& l : f.links()) EXPECT_LT(l.a, l.b);
    EXPECT_EQ(boost::num_edges(f.graph().g), f.links().size());
}

TEST(Fabric, FindsByNameGuidAndLid) {
    Fabric f = leaf_spine({});
    const Node* leaf = f.find("leaf02");
    ASSERT_NE(leaf, nullptr);
    EXPECT_EQ(f.find("0x0000000000002002"), leaf);
    EXPECT_EQ(f.find(std::to_string(leaf->lid())), leaf);
    EXPECT_EQ(f.find("nope"), nullptr);
    // A host is found by its port GUID too.
    const Node* h = f.find("h0001 HCA-1");
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(f.find(format_guid(h->ports[0].guid)), h);
}

TEST(Fabric, LinkOfPortIsSymmetric) {
    Fabric f = leaf_spine({});
    const Node* leaf = f.find("leaf01");
    const Link* l = f.link_of(PortRef{leaf->guid, 5});
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(f.link_of(l->a), l);
    EXPECT_EQ(f.link_of(l->b), l);
    EXPECT_EQ(f.link_of(PortRef{leaf->guid, 0}), nullptr);
}

TEST(Fabric, RejectsPeersThatDisagree) {
    auto nodes = leaf_spine_nodes({});
    node_named(nodes, "leaf01").port(5)->peer = PortRef{0x3002, 1};
    auto f = Fabric::build(nodes);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("disagree"), std::string::npos) << f.error().message;
}

TEST(Fabric, RejectsUnknownPeerAndDuplicateGuid) {
    auto nodes = leaf_spine_nodes({});
    node_named(nodes, "leaf01").port(5)->peer = PortRef{0x9999, 1};
    auto f = Fabric::build(nodes);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("not in the fabric"), std::string::npos);

    nodes = leaf_spine_nodes({});
    nodes.push_back(nodes.front());
    f = Fabric::build(nodes);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("two nodes have GUID"), std::string::npos);
}

TEST(Tiers, LeafSpineFromDistanceNotNames) {
    Fabric f = leaf_spine({.spines = 3, .leaves = 5, .hosts_per_leaf = 2});
    Tiers t = classify_tiers(f);
    EXPECT_EQ(t.count(0), 10u);
    EXPECT_EQ(t.count(1), 5u);
    EXPECT_EQ(t.count(2), 3u);
    EXPECT_EQ(t.max_tier, 2);
    EXPECT_EQ(t.tier(*f.index_of(f.find("spine03")->guid)), 2);
}

TEST(Tiers, ThirdTierAndUnreachable) {
    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 1});
    // A core switch above both spines, and a switch attached to nothing.
    Node core;
    core.guid = 0x4001;
    core.type = NodeType::Switch;
    core.description = "core01";
    core.num_ports = 2;
    Node island = core;
    island.guid = 0x4002;
    island.description = "island";
    for (uint8_t p = 1; p <= 2; ++p) {
        Port port;
        port.num = p;
        port.phys_state = PhysState::LinkUp;
        core.ports.push_back(port);
        island.ports.push_back(port);
        island.ports.back().phys_state = PhysState::Polling;
    }
    // spines have ports 1..2 used; give each a port 3 to the core.
    for (int s = 1; s <= 2; ++s) {
        Node& sp = node_named(nodes, "spine0" + std::to_string(s));
        Port p3 = sp.ports.back();
        p3.num = 3;
        p3.peer = PortRef{core.guid, static_cast<uint8_t>(s)};
        sp.ports.push_back(p3);
        core.ports[static_cast<size_t>(s - 1)].peer = PortRef{sp.guid, 3};
    }
    nodes.push_back(core);
    nodes.push_back(island);
    auto f = Fabric::build(nodes);
    ASSERT_TRUE(f) << f.error().message;
    Tiers t = classify_tiers(*f);
    EXPECT_EQ(t.tier(*f->index_of(0x4001)), 3);
    EXPECT_EQ(t.tier(*f->index_of(0x4002)), kTierUnreachable);
    EXPECT_EQ(t.max_tier, 3);
    EXPECT_EQ(tier_name(3), "core");
}

TEST(Guid, ParseAndFormat) {
    EXPECT_EQ(format_guid(0x2c90300a1b2c3), "0x0002c90300a1b2c3");
    EXPECT_EQ(parse_guid("0x0002c90300a1b2c3"), Guid{0x2c90300a1b2c3});
    EXPECT_EQ(parse_guid("2c90300a1b2c3"), Guid{0x2c90300a1b2c3});
    EXPECT_FALSE(parse_guid("0x"));
    EXPECT_FALSE(parse_guid("0x12345678901234567"));
    EXPECT_FALSE(parse_guid("xyz"));
}

}  // namespace
}  // namespace fabscope
