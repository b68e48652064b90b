#include "check/link_checks.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_fabrics.h"

namespace fabscope {
namespace {

using testing::leaf_spine_nodes;
using testing::node_named;

std::vector<Finding> check(const std::vector<Node>& nodes) {
    auto f = Fabric::build(nodes);
    EXPECT_TRUE(f) << f.error().message;
    return check_links(*f, classify_tiers(*f));
}

std::vector<std::string> kinds(const std::vector<Finding>& fs) {
    std::vector<std::string> k;
    for (const auto& x : fs) k.push_back(x.kind);
    std::sort(k.begin(), k.end());
    return k;
}

TEST(LinkChecks, CleanFabricHasNoFindings) {
    EXPECT_TRUE(check(leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4})).empty());
}

TEST(LinkChecks, WidthConfiguredDownIsBelowPeersOnly) {
    // As the lab's `fault width` does: both ends enabled 1X only, running 1X.
    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    testing::set_link_width(nodes, "leaf02", 5, Width::X1, WidthSet{Width::X1});
    auto fs = check(nodes);
    ASSERT_EQ(kinds(fs), std::vector<std::string>{"link_below_peers"});
    EXPECT_EQ(fs[0].evidence["width_active"], "1X");
    EXPECT_EQ(fs[0].evidence["usual_width"], "4X");
    EXPECT_EQ(fs[0].evidence["links_at_usual_rate"], 7);
    EXPECT_NE(fs[0].summary.find("leaf02[5] <-> spine01[2]"), std::string::npos) << fs[0].summary;
}

TEST(LinkChecks, WidthTrainedDownIsBelowCapabilityToo) {
    // Both ends enable 1X|4X but the link came up at 1X: a bad lane or cable.
    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    testing::set_link_width(nodes, "leaf03", 6, Width::X1, WidthSet{Width::X1, Width::X4});
    auto fs = check(nodes);
    EXPECT_EQ(kinds(fs), (std::vector<std::string>{"link_below_capability", "link_below_peers"}));
}

TEST(LinkChecks, SlowerSpeedIsFlagged) {
    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    Node& leaf = node_named(nodes, "leaf01");
    PortRef far = *leaf.port(1)->peer;
    leaf.port(1)->speed_active = Speed::EDR;
    for (Node& n : nodes) {
        if (n.guid == far.node) n.port(far.port)->speed_active = Speed::EDR;
    }
    auto fs = check(nodes);
    EXPECT_EQ(kinds(fs), (std::vector<std::string>{"link_below_capability", "link_below_peers"}));
}

TEST(LinkChecks, UnpluggedUplinkShowsPollingAndAsymmetry) {
    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    testing::unplug(nodes, "leaf01", 6);  // leaf01's only link to spine02
    auto fs = check(nodes);
    EXPECT_EQ(kinds(fs),
              (std::vector<std::string>{"link_count_asymmetry", "port_polling", "port_polling"}));
    auto asym = std::find_if(fs.begin(), fs.end(),
                             [](auto& f) { return f.kind == "link_count_asymmetry"; });
    EXPECT_NE(asym->summary.find("leaf01 and spine02 are joined by 0 links"), std::string::npos)
        << asym->summary;
    EXPECT_EQ(asym->evidence["usual_links"], 1);
}

TEST(LinkChecks, OneOfTwoParallelLinksMissing) {
    auto nodes =
        leaf_spine_nodes({.spines = 2, .leaves = 3, .hosts_per_leaf = 2, .links_per_pair = 2});
    testing::unplug(nodes, "leaf02", 3);
    auto fs = check(nodes);
    EXPECT_EQ(kinds(fs),
              (std::vector<std::string>{"link_count_asymmetry", "port_polling", "port_polling"}));
}

TEST(LinkChecks, ActiveStateAndMtu) {
    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    node_named(nodes, "h0001 HCA-1").ports[0].state = PortState::Init;
    Node& leaf = node_named(nodes, "leaf02");
    leaf.port(3)->mtu_active = 2048;
    auto fs = check(nodes);
    EXPECT_EQ(kinds(fs), (std::vector<std::string>{"mtu_below_capability", "port_not_active"}));
}

TEST(LinkChecks, NoMajorityNoPeerFinding) {
    // Half the leaf-spine links at 1X: no "usual" rate to compare against.
    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    testing::set_link_width(nodes, "leaf01", 3, Width::X1, WidthSet{Width::X1});
    testing::set_link_width(nodes, "leaf02", 3, Width::X1, WidthSet{Width::X1});
    auto fs = check(nodes);
    EXPECT_TRUE(fs.empty()) << fs.front().summary;
}

}  // namespace
}  // namespace fabscope
