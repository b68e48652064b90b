#include "trace/traced_switches.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "trace/trace_fabric.h"
#include "util/fnv.h"

namespace fabscope::perf {
namespace {

using nlohmann::json;

/// The switch a host port is cabled to, 0 when it is not cabled to one.
Guid leaf_of(const Fabric& f, PortRef host) {
    const Port* p = f.port(host);
    if (!p || !p->peer) return 0;
    const Node* n = f.node(p->peer->node);
    return n && n->type == NodeType::Switch ? n->guid : 0;
}

/// Traced router -> the LLDP leaf most traces tie it to; conflicts become findings.
std::map<Guid, Guid> leaves_of_routers(const Fabric& f, const TracedFabric& tf,
                                       const std::vector<HostPathTrace>& traces,
                                       std::vector<Finding>& problems) {
    std::map<Guid, std::map<Guid, int>> votes;
    for (const HostPathTrace& t : traces) {
        if (t.hops.empty()) continue;
        if (auto r = tf.router(router_key(t.hops.front())); r && leaf_of(f, t.src))
            ++votes[*r][leaf_of(f, t.src)];
        if (auto r = tf.router(router_key(t.hops.back())); r && leaf_of(f, t.dst))
            ++votes[*r][leaf_of(f, t.dst)];
    }
    std::map<Guid, Guid> out;
    for (const auto& [router, leaves] : votes) {
        auto best =
            std::max_element(leaves.begin(), leaves.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        out[router] = best->first;
        if (leaves.size() < 2) continue;
        json counts = json::object();
        for (const auto& [leaf, n] : leaves) counts[f.node(leaf)->description] = n;
        Finding p;
        p.kind = "traced_router_on_two_leaves";
        p.severity = Severity::Warning;
        p.summary = fmt::format(
            "traced router {} is the first or last hop of hosts on {} different leaves; taken "
            "as {}: a names file that gives one address two names, or hosts cabled to "
            "different leaves than LLDP says",
            tf.router_name(router), leaves.size(), f.node(best->first)->description);
        p.evidence = {{"router", tf.router_name(router)}, {"traces_per_leaf", counts}};
        problems.push_back(std::move(p));
    }
    return out;
}

/// The lowest port number above those a node already has (from 1 for none).
uint8_t next_port(const Node& n) {
    uint8_t top = 0;
    for (const Port& p : n.ports) top = std::max(top, p.num);
    return static_cast<uint8_t>(top + 1);
}

Port traced_port(uint8_t num, PortRef peer) {
    Port p;
    p.num = num;
    p.state = PortState::Active;
    p.phys_state = PhysState::LinkUp;
    p.peer = peer;
    return p;
}

/// The result's nodes as they are built: LLDP's, then the routers added,
/// by GUID; each traced router's node; and the routers, for the summary.
struct MergedNodes {
    std::vector<Node> nodes;
    std::map<Guid, size_t> index;
    std::map<Guid, Guid> node_of;  // traced router -> node GUID
    json routers = json::array();

    Node& at(Guid g) { return nodes[index[g]]; }
};

/// Every traced router as a node of the result: its leaf, or a new switch.
Result<size_t> add_router_nodes(MergedNodes& m, const TracedFabric& tf,
                                const std::map<Guid, Guid>& as_leaf) {
    size_t added = 0;
    for (const Node& r : tf.fabric().nodes()) {
        auto leaf = as_leaf.find(r.guid);
        if (leaf != as_leaf.end()) {
            m.node_of[r.guid] = leaf->second;
            m.routers.push_back({{"name", r.description},
                                 {"role", "leaf"},
                                 {"node", m.at(leaf->second).description}});
            continue;
        }
        Node n;
        n.type = NodeType::Switch;
        n.guid = fnv1a64(fmt::format("traced router:{}", r.description));
        n.system_guid = n.guid;
        n.description = r.description;
        if (m.index.count(n.guid)) {
            return make_error(fmt::format("traced router {} has the GUID {} of another node",
                                          r.description, format_guid(n.guid)));
        }
        m.index[n.guid] = m.nodes.size();
        m.nodes.push_back(std::move(n));
        m.node_of[r.guid] = m.nodes.back().guid;
        ++added;
        m.routers.push_back({{"name", r.description}, {"role", "router"}});
    }
    return added;
}

struct RouterCable {
    Guid a, b;
    std::string a_address, b_address;
};

/// The cables between routers, once per pair of nodes (a leaf that
/// answered from several addresses is several routers of one node), in the
/// order of their ends' names so port numbers do not depend on the order
/// the traces came in.
std::map<std::pair<std::string, std::string>, RouterCable> router_cables(const TracedFabric& tf,
                                                                         MergedNodes& m) {
    std::map<std::pair<std::string, std::string>, RouterCable> cables;
    for (const Link& l : tf.fabric().links()) {
        Guid a = m.node_of.at(l.a.node);
        Guid b = m.node_of.at(l.b.node);
        if (a == b) continue;
        RouterCable c{a, b, tf.address(l.a), tf.address(l.b)};
        std::string na = m.at(a).description;
        std::string nb = m.at(b).description;
        if (nb < na) {
            std::swap(na, nb);
            std::swap(c.a, c.b);
            std::swap(c.a_address, c.b_address);
        }
        cables.emplace(std::make_pair(na, nb), std::move(c));
    }
    return cables;
}

/// A cable given ports on its two nodes.
struct PlacedCable {
    PortRef a, b;
    const RouterCable* cable;
};

/// Each cable on the next free port of each of its nodes, while the model
/// has port numbers left.
std::vector<PlacedCable> place_cables(
    MergedNodes& m, const std::map<std::pair<std::string, std::string>, RouterCable>& cables) {
    std::vector<PlacedCable> placed;
    for (const auto& [names, c] : cables) {
        Node& a = m.at(c.a);
        Node& b = m.at(c.b);
        uint8_t pa = next_port(a);
        uint8_t pb = next_port(b);
        if (pa == 0 || pb == 0 || pa > 254 || pb > 254) continue;  // the model's port limit
        a.ports.push_back(traced_port(pa, PortRef{b.guid, pb}));
        b.ports.push_back(traced_port(pb, PortRef{a.guid, pa}));
        a.num_ports = std::max(a.num_ports, pa);
        b.num_ports = std::max(b.num_ports, pb);
        placed.push_back({PortRef{a.guid, pa}, PortRef{b.guid, pb}, &c});
    }
    return placed;
}

json cable_list(const Fabric& f, const std::vector<PlacedCable>& placed) {
    json out = json::array();
    for (const PlacedCable& p : placed) {
        out.push_back({{"a", describe(f, p.a)},
                       {"a_address", p.cable->a_address},
                       {"b", describe(f, p.b)},
                       {"b_address", p.cable->b_address}});
    }
    return out;
}

Finding unnamed_routers() {
    Finding p;
    p.kind = "traced_routers_unnamed";
    p.severity = Severity::Info;
    p.summary =
        "some traced routers have no name (no --names entry for the address they answered "
        "from): a router that answers from several addresses then counts as several";
    return p;
}

}  // namespace

Result<TracedSwitches> add_traced_switches(const Fabric& lldp,
                                           const std::vector<HostPathTrace>& traces) {
    TracedSwitches out;
    std::vector<std::vector<TraceHop>> paths;
    bool unnamed = false;
    for (const HostPathTrace& t : traces) {
        paths.push_back(t.hops);
        for (const TraceHop& h : t.hops) unnamed = unnamed || h.name.empty();
    }
    TracedFabric tf = TracedFabric::from_paths(paths);
    std::map<Guid, Guid> as_leaf = leaves_of_routers(lldp, tf, traces, out.problems);

    MergedNodes m;
    m.nodes = lldp.nodes();
    for (size_t i = 0; i < m.nodes.size(); ++i) m.index[m.nodes[i].guid] = i;
    auto added = add_router_nodes(m, tf, as_leaf);
    if (!added) return added.error();
    out.routers_added = *added;
    const auto cables = router_cables(tf, m);
    const std::vector<PlacedCable> placed = place_cables(m, cables);
    out.cables_added = placed.size();
    auto built = Fabric::build(std::move(m.nodes));
    if (!built) return built.error();
    out.fabric = std::move(*built);
    json cables_json = cable_list(out.fabric, placed);
    if (unnamed && !traces.empty()) out.problems.push_back(unnamed_routers());
    out.summary = {{"paths", traces.size()}, {"routers", m.routers}, {"cables", cables_json}};
    return out;
}

}  // namespace fabscope::perf
