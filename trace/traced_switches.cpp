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

    std::vector<Node> nodes = lldp.nodes();
    std::map<Guid, size_t> index;
    for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].guid] = i;
    // Every traced router as a node of the result: its leaf, or a new switch.
    std::map<Guid, Guid> node_of;  // traced router -> node GUID
    json routers = json::array();
    for (const Node& r : tf.fabric().nodes()) {
        auto leaf = as_leaf.find(r.guid);
        if (leaf != as_leaf.end()) {
            node_of[r.guid] = leaf->second;
            routers.push_back({{"name", r.description},
                               {"role", "leaf"},
                               {"node", nodes[index[leaf->second]].description}});
            continue;
        }
        Node n;
        n.type = NodeType::Switch;
        n.guid = fnv1a64(fmt::format("traced router:{}", r.description));
        n.system_guid = n.guid;
        n.description = r.description;
        if (index.count(n.guid)) {
            return make_error(fmt::format("traced router {} has the GUID {} of another node",
                                          r.description, format_guid(n.guid)));
        }
        index[n.guid] = nodes.size();
        nodes.push_back(std::move(n));
        node_of[r.guid] = nodes.back().guid;
        ++out.routers_added;
        routers.push_back({{"name", r.description}, {"role", "router"}});
    }
    // The cables between routers, once per pair of nodes (a leaf that
    // answered from several addresses is several routers of one node), in
    // the order of their ends' names so port numbers do not depend on the
    // order the traces came in.
    struct Cable {
        Guid a, b;
        std::string a_address, b_address;
    };
    std::map<std::pair<std::string, std::string>, Cable> cables;
    for (const Link& l : tf.fabric().links()) {
        Guid a = node_of.at(l.a.node);
        Guid b = node_of.at(l.b.node);
        if (a == b) continue;
        Cable c{a, b, tf.address(l.a), tf.address(l.b)};
        std::string na = nodes[index[a]].description;
        std::string nb = nodes[index[b]].description;
        if (nb < na) {
            std::swap(na, nb);
            std::swap(c.a, c.b);
            std::swap(c.a_address, c.b_address);
        }
        cables.emplace(std::make_pair(na, nb), std::move(c));
    }
    struct Placed {
        PortRef a, b;
        const Cable* cable;
    };
    std::vector<Placed> placed;
    for (const auto& [names, c] : cables) {
        Node& a = nodes[index[c.a]];
        Node& b = nodes[index[c.b]];
        uint8_t pa = next_port(a);
        uint8_t pb = next_port(b);
        if (pa == 0 || pb == 0 || pa > 254 || pb > 254) continue;  // the model's port limit
        a.ports.push_back(traced_port(pa, PortRef{b.guid, pb}));
        b.ports.push_back(traced_port(pb, PortRef{a.guid, pa}));
        a.num_ports = std::max(a.num_ports, pa);
        b.num_ports = std::max(b.num_ports, pb);
        placed.push_back({PortRef{a.guid, pa}, PortRef{b.guid, pb}, &c});
        ++out.cables_added;
    }
    auto built = Fabric::build(std::move(nodes));
    if (!built) return built.error();
    out.fabric = std::move(*built);
    json cable_list = json::array();
    for (const Placed& p : placed) {
        cable_list.push_back({{"a", describe(out.fabric, p.a)},
                              {"a_address", p.cable->a_address},
                              {"b", describe(out.fabric, p.b)},
                              {"b_address", p.cable->b_address}});
    }
    if (unnamed && !traces.empty()) {
        Finding p;
        p.kind = "traced_routers_unnamed";
        p.severity = Severity::Info;
        p.summary =
            "some traced routers have no name (no --names entry for the address they answered "
            "from): a router that answers from several addresses then counts as several";
        out.problems.push_back(std::move(p));
    }
    out.summary = {{"paths", traces.size()}, {"routers", routers}, {"cables", cable_list}};
    return out;
}

}  // namespace fabscope::perf
