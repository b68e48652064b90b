// Plans and the diff against them, on in-memory fabrics.

#include "model/plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "check/validate.h"
#include "model/plan_diff.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using testing::leaf_spine_nodes;
using testing::node_named;
using testing::swap_cables;

const testing::LeafSpineShape kShape{.spines = 2, .leaves = 4, .hosts_per_leaf = 2};

Plan good_plan() {
    Fabric f = testing::leaf_spine(kShape);
    return plan_from_fabric(f, classify_tiers(f));
}

std::vector<std::string> kinds_of(const std::vector<Finding>& fs) {
    std::vector<std::string> k;
    for (const auto& x : fs) k.push_back(x.kind);
    std::sort(k.begin(), k.end());
    return k;
}

Validation run(const std::vector<Node>& nodes, const Plan& plan) {
    auto f = Fabric::build(nodes);
    EXPECT_TRUE(f) << f.error().message;
    Tiers t = classify_tiers(*f);
    return validate(
        ValidationInput{*f, t, {}, nullptr, nullptr, &plan, nullptr, default_thresholds()});
}

TEST(Plan, RoundTripsThroughYaml) {
    Plan p = good_plan();
    p.links_per_leaf_spine = 1;
    p.links[3].width = Width::X1;
    std::string yaml = plan_to_yaml(p);
    auto back = parse_plan(yaml, "p.yaml");
    ASSERT_TRUE(back) << back.error().message << "\n" << yaml;
    EXPECT_EQ(back->width, Width::X4);
    EXPECT_EQ(back->speed, Speed::HDR);
    EXPECT_EQ(back->tiers, p.tiers);
    ASSERT_EQ(back->links.size(), p.links.size());
    for (size_t i = 0; i < p.links.size(); ++i) {
        EXPECT_EQ(back->links[i].a, p.links[i].a);
        EXPECT_EQ(back->links[i].b, p.links[i].b);
        EXPECT_EQ(back->links[i].width, p.links[i].width);
    }
    EXPECT_EQ(back->guids, p.guids);
    EXPECT_EQ(back->links_per_leaf_spine, 1);
}

TEST(Plan, FromAFabricNamesHostsAsTheUserGuideDoes) {
    // "h0001", as people write plans, not "h0001 HCA-1"; the full
    // description where two nodes' start alike (two HCAs in one host).
    std::vector<Node> nodes = leaf_spine_nodes(kShape);
    node_named(nodes, "h0002 HCA-1").description = "h0001 HCA-2";
    Fabric f = Fabric::build(std::move(nodes)).value();
    Plan p = plan_from_fabric(f, classify_tiers(f));
    const auto& hosts = p.tiers.at("host");
    EXPECT_EQ(std::count(hosts.begin(), hosts.end(), "h0003"), 1);
    EXPECT_EQ(std::count(hosts.begin(), hosts.end(), "h0001 HCA-1"), 1);
    EXPECT_EQ(std::count(hosts.begin(), hosts.end(), "h0001 HCA-2"), 1);
    EXPECT_EQ(std::count(hosts.begin(), hosts.end(), "leaf01"), 0);
    EXPECT_TRUE(run(leaf_spine_nodes(kShape), good_plan()).findings.empty());
    // Either name finds the host: a plan that writes the description too.
    std::string yaml = plan_to_yaml(good_plan());
    for (size_t at = yaml.find("h0003"); at != std::string::npos; at = yaml.find("h0003", at + 12))
        yaml.replace(at, 5, "h0003 HCA-1");
    auto described = parse_plan(yaml, "described.yaml");
    ASSERT_TRUE(described) << described.error().message;
    EXPECT_TRUE(run(leaf_spine_nodes(kShape), *described).findings.empty());
}

TEST(Plan, AHandWrittenPlan) {
    auto p = parse_plan(R"(# two leaves, two spines, counted not listed
fabscope_plan: 1
expect: {width: 4X, speed: HDR}
tiers:
  spine: [spine01, spine02]
  leaf: [leaf01, leaf02]
leaf_spine: {links_per_pair: 1}
)",
                        "p.yaml");
    ASSERT_TRUE(p) << p.error().message;
    Fabric f = testing::leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    auto d = diff_against_plan(*p, f, classify_tiers(f));
    EXPECT_TRUE(d.findings.empty())
        << d.findings.front().summary;  // hosts are not enumerated: not "new"

    auto nodes = leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    testing::unplug(nodes, "leaf02", 4);
    auto broken = Fabric::build(nodes);
    d = diff_against_plan(*p, *broken, classify_tiers(*broken));
    ASSERT_EQ(kinds_of(d.findings), std::vector<std::string>{"leaf_spine_links"});
    EXPECT_EQ(d.findings[0].summary, "leaf02 and spine02 are joined by 0 links, planned 1");
}

TEST(Plan, ParseErrorsSayWhere) {
    struct Case {
        const char* text;
        const char* error;
    };
    for (const Case& c : std::vector<Case>{
             {"fabscope_plan: 1\nlinks:\n  - [leaf01, 5, spine01]",
              "p.yaml:3:5: a link is [node, port, node, port]"},
             {"fabscope_plan: 1\nlinks:\n  - [leaf01, x, spine01, 1]",
              "p.yaml:3:14: \"x\" is not a whole number"},
             {"fabscope_plan: 1\nlinks:\n  - [leaf01, 300, spine01, 1]",
              "p.yaml:3:14: 300 is out of range (0..254)"},
             {"fabscope_plan: 1\nlinks:\n  - [a, 1, b, 1]\n  - [a, 1, c, 1]",
              "p.yaml:4:5: a[1] is in two planned links"},
             {"fabscope_plan: 1\nexpect: {width: 3X}",
              "p.yaml:2:17: \"3X\" is not one of 1X, 2X, 4X, 8X, 12X"},
             {"fabscope_plan: 1\ntiers: {middle: [a]}", "p.yaml:2:9: unknown tier \"middle\""},
             {"fabscope_plan: 1\nleaf_spine: {links_per_pair: 1}",
              "p.yaml:2:13: leaf_spine needs tiers.leaf"},
             {"fabscope_plan: 9", "p.yaml:1:16: plan version must be 1"},
             {"nodes: []", "p.yaml:1:1: missing \"fabscope_plan\""},
         }) {
        auto p = parse_plan(c.text, "p.yaml");
        ASSERT_FALSE(p) << c.text;
        EXPECT_EQ(p.error().message.rfind(c.error, 0), 0u) << p.error().message;
    }
}

TEST(PlanDiff, CleanFabricPasses) {
    auto v = run(leaf_spine_nodes(kShape), good_plan());
    EXPECT_TRUE(v.findings.empty()) << v.findings.front().summary;
    EXPECT_FALSE(v.failed());
}

TEST(PlanDiff, ALinkDown) {
    auto nodes = leaf_spine_nodes(kShape);
    testing::unplug(nodes, "leaf03", 4);  // leaf03 - spine02
    auto v = run(nodes, good_plan());
    ASSERT_EQ(kinds_of(v.findings),
              std::vector<std::string>{"link_down"});  // no polling, no asymmetry: the plan says it
    EXPECT_EQ(v.findings[0].summary,
              "leaf03[4] <-> spine02[3] is down (Down/Polling, Down/Polling)");
    EXPECT_TRUE(v.failed());
}

TEST(PlanDiff, ALinkBelowPlan) {
    auto nodes = leaf_spine_nodes(kShape);
    testing::set_link_width(nodes, "leaf02", 3, Width::X1, WidthSet{Width::X1});
    auto v = run(nodes, good_plan());
    ASSERT_EQ(kinds_of(v.findings), std::vector<std::string>{"degraded_link"});
    EXPECT_EQ(v.findings[0].summary,
              "leaf02[3] <-> spine01[2] runs 1X HDR (50 Gb/s), planned 4X HDR (200 Gb/s)");
}

TEST(PlanDiff, SwappedCables) {
    auto nodes = leaf_spine_nodes(kShape);
    swap_cables(nodes, "leaf01", 3, 4);
    auto v = run(nodes, good_plan());
    ASSERT_EQ(kinds_of(v.findings), std::vector<std::string>{"cables_swapped"});
    EXPECT_EQ(v.findings[0].where.size(), 4u);
}

TEST(PlanDiff, OneCableOnAWrongPort) {
    auto nodes = leaf_spine_nodes(kShape);
    // leaf01[3] unplugged from spine01[1] and plugged into spine01's spare port 9.
    Node& sp = node_named(nodes, "spine01");
    Port spare = *sp.port(1);
    spare.num = 9;
    spare.peer.reset();
    sp.ports.push_back(spare);
    sp.num_ports = 9;
    testing::unplug(nodes, "leaf01", 3);
    Node& leaf = node_named(nodes, "leaf01");
    *leaf.port(3) = *node_named(nodes, "leaf02").port(3);
    leaf.port(3)->guid = leaf.guid;
    leaf.port(3)->peer = PortRef{sp.guid, 9};
    sp.port(9)->peer = PortRef{leaf.guid, 3};
    sp.port(9)->state = PortState::Active;
    sp.port(9)->phys_state = PhysState::LinkUp;
    auto v = run(nodes, good_plan());
    ASSERT_EQ(kinds_of(v.findings), std::vector<std::string>{"miswired"});
    EXPECT_EQ(v.findings[0].summary, "leaf01[3] goes to spine01[9], planned spine01[1]");
}

TEST(PlanDiff, AHostMissingIsOneFinding) {
    auto nodes = leaf_spine_nodes(kShape);
    testing::unplug(nodes, "h0005 HCA-1", 1);
    nodes.erase(std::find_if(nodes.begin(), nodes.end(),
                             [](const Node& n) { return n.description == "h0005 HCA-1"; }));
    auto v = run(nodes, good_plan());
    ASSERT_EQ(kinds_of(v.findings), std::vector<std::string>{"node_missing"});
    EXPECT_EQ(v.findings[0].summary, "host h0005 is missing (planned on leaf03[1])");
}

TEST(PlanDiff, NewNodesAndReplacedHardware) {
    Plan p = good_plan();
    auto nodes = leaf_spine_nodes(
        {.spines = 2, .leaves = 4, .hosts_per_leaf = 3});  // one more host per leaf
    Node& h = node_named(nodes, "h0001 HCA-1");
    auto v = run(nodes, p);
    // The new shape renames hosts: h0003 is now leaf01's third host, and so on.
    EXPECT_TRUE(std::any_of(v.findings.begin(), v.findings.end(),
                            [](auto& f) { return f.kind == "node_new"; }));
    (void)h;

    nodes = leaf_spine_nodes(kShape);
    node_named(nodes, "leaf04").guid = 0x9999;  // a replaced switch: same name, new GUID
    for (Node& n : nodes) {
        for (Port& port : n.ports) {
            if (port.peer && port.peer->node == 0x2004) port.peer->node = 0x9999;
        }
    }
    v = run(nodes, p);
    ASSERT_EQ(kinds_of(v.findings), std::vector<std::string>{"node_replaced"})
        << v.findings.front().summary;
    EXPECT_FALSE(v.failed());  // information only
}

TEST(PlanDiff, BaselineDiffSeesTheSameAndCounters) {
    auto nodes = leaf_spine_nodes(kShape);
    PortCounters pc;
    pc.read_at_ms = 1000;
    pc.set(Counter::SymbolErrorCounter, 5);
    node_named(nodes, "leaf02").port(4)->counters = pc;
    Fabric before = *Fabric::build(nodes);
    testing::unplug(nodes, "leaf01", 4);
    pc.read_at_ms = 31000;
    pc.set(Counter::SymbolErrorCounter, 50);
    node_named(nodes, "leaf02").port(4)->counters = pc;
    Fabric after = *Fabric::build(nodes);
    Validation v = diff_snapshots(before, after, default_thresholds());
    // 45 symbol errors in 30 s at 4X QDR: also a bit error rate above 1e-12.
    EXPECT_EQ(kinds_of(v.findings),
              (std::vector<std::string>{"bit_error_rate", "counter_rising", "link_down"}));
    EXPECT_EQ(v.findings[0].kind, "link_down");  // errors first
}

}  // namespace
}  // namespace fabscope
