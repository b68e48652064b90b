// Spines from path traces added to a RoCE fabric that LLDP built (hosts and
// leaves only): which traced router is which leaf, the routers added, the
// cables between routers with fabscope's own port numbers and the addresses
// their ends answered from, and what cannot be told apart.

#include "trace/traced_switches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace fabscope::perf {
namespace {

constexpr Guid kL1 = 0x100;
constexpr Guid kL2 = 0x200;

Port cabled(uint8_t num, PortRef peer) {
    Port p;
    p.num = num;
    p.state = PortState::Active;
    p.phys_state = PhysState::LinkUp;
    p.peer = peer;
    return p;
}

/// a1, a2 on l1 ports 1 and 2; b1, b2 on l2 ports 1 and 2: what LLDP shows.
Fabric lldp_fabric() {
    std::vector<Node> nodes;
    auto leaf = [&](Guid g, const char* name) {
        Node n;
        n.guid = g;
        n.type = NodeType::Switch;
        n.description = name;
        return n;
    };
    Node l1 = leaf(kL1, "l1");
    Node l2 = leaf(kL2, "l2");
    const char* hosts[] = {"a1", "a2", "b1", "b2"};
    for (int i = 0; i < 4; ++i) {
        Node h;
        h.guid = 0x10 + static_cast<Guid>(i);
        h.description = std::string(hosts[i]) + " rxe0";
        h.num_ports = 1;
        Node& sw = i < 2 ? l1 : l2;
        auto port = static_cast<uint8_t>(i % 2 + 1);
        h.ports.push_back(cabled(1, PortRef{sw.guid, port}));
        sw.ports.push_back(cabled(port, PortRef{h.guid, 1}));
        sw.num_ports = port;
        nodes.push_back(h);
    }
    nodes.push_back(l1);
    nodes.push_back(l2);
    return *Fabric::build(std::move(nodes));
}

PortRef host(int i) {
    return PortRef{0x10 + static_cast<Guid>(i), 1};
}

TraceHop hop(int ttl, const std::string& address, const std::string& name) {
    TraceHop h;
    h.ttl = ttl;
    h.address = address;
    h.name = name;
    return h;
}

/// a1 -> b1 over spine `s` and back, every router named (a names file):
/// the leaf answers a host's probe from its host side, a spine from its side
/// of the cable the probe came in on.
std::vector<HostPathTrace> across(int spine) {
    std::string s = "s" + std::to_string(spine);
    std::string n = std::to_string(spine);
    return {{host(0),
             host(2),
             {hop(1, "10.1.1.1", "l1"), hop(2, "10.9.1" + n + ".1", s),
              hop(3, "10.9.2" + n + ".0", "l2")}},
            {host(2),
             host(0),
             {hop(1, "10.1.2.1", "l2"), hop(2, "10.9.2" + n + ".1", s),
              hop(3, "10.9.1" + n + ".0", "l1")}}};
}

std::set<std::string> switches(const Fabric& f) {
    std::set<std::string> out;
    for (const Node& n : f.nodes())
        if (n.type == NodeType::Switch) out.insert(n.description);
    return out;
}

std::set<std::string> cables(const Fabric& f) {
    std::set<std::string> out;
    for (const Link& l : f.links()) {
        const Node* a = f.node(l.a.node);
        const Node* b = f.node(l.b.node);
        if (a->type != NodeType::Switch || b->type != NodeType::Switch) continue;
        std::string x = describe(f, l.a);
        std::string y = describe(f, l.b);
        out.insert(x < y ? x + " <-> " + y : y + " <-> " + x);
    }
    return out;
}

TEST(TracedSwitches, NamedTracesAddTheSpinesAndTheirCables) {
    auto traces = across(1);
    auto more = across(2);
    traces.insert(traces.end(), more.begin(), more.end());
    auto r = add_traced_switches(lldp_fabric(), traces);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(switches(r->fabric), (std::set<std::string>{"l1", "l2", "s1", "s2"}));
    EXPECT_EQ(r->routers_added, 2U);
    EXPECT_EQ(r->cables_added, 4U);
    // Leaf uplinks above the LLDP ports (1, 2), spines from 1, in name order.
    EXPECT_EQ(cables(r->fabric), (std::set<std::string>{"l1[3] <-> s1[1]", "l1[4] <-> s2[1]",
                                                        "l2[3] <-> s1[2]", "l2[4] <-> s2[2]"}));
    EXPECT_TRUE(r->problems.empty());
    // The hosts' cables are where LLDP put them.
    EXPECT_EQ(describe(r->fabric, r->fabric.port(host(3))->peer.value()), "l2[2]");
    const auto& c = r->summary["cables"];
    ASSERT_EQ(c.size(), 4U);
    EXPECT_EQ(c[0]["a"], "l1[3]");
    EXPECT_EQ(c[0]["a_address"], "10.9.11.0");
    EXPECT_EQ(c[0]["b"], "s1[1]");
    EXPECT_EQ(c[0]["b_address"], "10.9.11.1");
    EXPECT_EQ(r->summary["paths"], 4);
}

TEST(TracedSwitches, PortNumbersDoNotDependOnTheOrderOfTheTraces) {
    auto traces = across(2);
    auto more = across(1);
    traces.insert(traces.end(), more.begin(), more.end());
    std::reverse(traces.begin(), traces.end());
    auto r = add_traced_switches(lldp_fabric(), traces);
    ASSERT_TRUE(r);
    EXPECT_EQ(cables(r->fabric), (std::set<std::string>{"l1[3] <-> s1[1]", "l1[4] <-> s2[1]",
                                                        "l2[3] <-> s1[2]", "l2[4] <-> s2[2]"}));
}

TEST(TracedSwitches, UnnamedRoutersCountOncePerAddressAndSaySo) {
    auto traces = across(1);
    for (auto& t : traces)
        for (auto& h : t.hops) h.name.clear();
    auto r = add_traced_switches(lldp_fabric(), traces);
    ASSERT_TRUE(r);
    // Each leaf answered from two addresses (first and last hop): both are
    // tied to it by the hosts under it, so it stays one leaf. The spine
    // answered from one address per leaf: two routers.
    EXPECT_EQ(r->routers_added, 2U);
    EXPECT_EQ(switches(r->fabric), (std::set<std::string>{"l1", "l2", "10.9.11.1", "10.9.21.1"}));
    ASSERT_EQ(r->problems.size(), 1U);
    EXPECT_EQ(r->problems[0].kind, "traced_routers_unnamed");
}

TEST(TracedSwitches, ARouterFirstForHostsOnTwoLeavesIsAFinding) {
    auto traces = across(1);
    // b2's trace starts at a router named l1: LLDP put b2 on l2.
    traces.push_back({host(3), host(0), {hop(1, "10.1.1.1", "l1"), hop(2, "10.9.11.9", "x")}});
    auto r = add_traced_switches(lldp_fabric(), traces);
    ASSERT_TRUE(r);
    ASSERT_FALSE(r->problems.empty());
    EXPECT_EQ(r->problems[0].kind, "traced_router_on_two_leaves");
    EXPECT_EQ(r->problems[0].evidence["traces_per_leaf"]["l1"], 2);
    EXPECT_EQ(r->problems[0].evidence["traces_per_leaf"]["l2"], 1);
}

TEST(TracedSwitches, HostsUnderOneLeafAddNothing) {
    std::vector<HostPathTrace> traces{{host(0), host(1), {hop(1, "10.1.1.1", "l1")}},
                                      {host(1), host(0), {hop(1, "10.1.1.5", "l1")}}};
    auto r = add_traced_switches(lldp_fabric(), traces);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->routers_added, 0U);
    EXPECT_EQ(r->cables_added, 0U);
    EXPECT_EQ(r->fabric.nodes().size(), lldp_fabric().nodes().size());
    auto none = add_traced_switches(lldp_fabric(), {});
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->problems.empty());
}

}  // namespace
}  // namespace fabscope::perf
