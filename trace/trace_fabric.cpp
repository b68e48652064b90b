#include "trace/trace_fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fabscope::perf {

namespace {

/// Synthetic GUIDs: routers have no GUID of their own.
constexpr Guid kRouterGuidBase = 0x5250000000000000ULL;  // "RP"

/// Each host as a node cabled to its first hop, the host's end port 1; the
/// router's end named by the address it answered the host from.
template <typename AddPort, typename IndexOf>
void add_hosts(const std::vector<TracedHost>& hosts, std::vector<Node>& nodes,
               std::map<PortRef, std::string>& address, std::map<int, PortRef>& host_port,
               const AddPort& add_port, const IndexOf& index_of) {
    for (const TracedHost& h : hosts) {
        if (h.first_hop.empty() || h.rank < 0 || host_port.count(h.rank)) continue;
        Node& leaf = nodes[index_of(h.first_hop)];
        if (leaf.ports.size() >= 254) continue;
        Node host;
        host.guid = kRankGuidBase + static_cast<Guid>(h.rank);
        host.type = NodeType::CA;
        host.description = h.name.empty() ? fmt::format("rank {}", h.rank) : h.name;
        const auto leaf_port = static_cast<uint8_t>(leaf.ports.size() + 1);
        add_port(host, PortRef{leaf.guid, leaf_port});
        add_port(leaf, PortRef{host.guid, 1});
        if (!h.leaf_address.empty()) address[PortRef{leaf.guid, leaf_port}] = h.leaf_address;
        host_port[h.rank] = PortRef{host.guid, 1};
        nodes.push_back(std::move(host));
    }
}

}  // namespace

std::string router_key(const TraceHop& h) {
    return h.name.empty() ? h.address : h.name;
}

TracedFabric TracedFabric::from_paths(const std::vector<std::vector<TraceHop>>& paths,
                                      const std::vector<TracedHost>& hosts) {
    TracedFabric t;
    std::vector<std::string> keys;
    // Cables as (router index, router index), smaller first; per cable the
    // address each end answered from.
    std::map<std::pair<size_t, size_t>, std::pair<std::string, std::string>> cables;
    // Routers in name order, so a cable is named the same way whichever
    // trace showed it first ("l1[..] <-> s2[..]").
    std::set<std::string> named;
    for (const auto& hops : paths) {
        for (const TraceHop& h : hops) named.insert(router_key(h));
    }
    for (const TracedHost& h : hosts) {
        if (!h.first_hop.empty()) named.insert(h.first_hop);
    }
    keys.assign(named.begin(), named.end());
    for (size_t i = 0; i < keys.size(); ++i) t.by_key_[keys[i]] = kRouterGuidBase + i + 1;
    auto index_of = [&](const std::string& key) {
        return static_cast<size_t>(t.by_key_.at(key) - kRouterGuidBase - 1);
    };
    for (const auto& hops : paths) {
        for (size_t i = 0; i < hops.size(); ++i) {
            size_t to = index_of(router_key(hops[i]));
            if (i == 0) continue;
            size_t from = index_of(router_key(hops[i - 1]));
            if (from == to) continue;
            const size_t lo = std::min(from, to);
            auto& addr = cables[{lo, std::max(from, to)}];
            // The hop answered from its end of the cable the probe came in on.
            (to == lo ? addr.first : addr.second) = hops[i].address;
        }
    }
    std::vector<Node> nodes(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
        nodes[i].guid = kRouterGuidBase + i + 1;
        nodes[i].type = NodeType::Switch;
        nodes[i].description = keys[i];
    }
    auto add_port = [](Node& n, PortRef peer) {
        Port p;
        p.num = static_cast<uint8_t>(n.ports.size() + 1);
        p.state = PortState::Active;
        p.phys_state = PhysState::LinkUp;
        p.peer = peer;
        n.ports.push_back(p);
        n.num_ports = static_cast<uint8_t>(n.ports.size());
    };
    for (const auto& [ends, addr] : cables) {
        Node& a = nodes[ends.first];
        Node& b = nodes[ends.second];
        // Port numbers stay below 255 (the model's limit); a router with more
        // neighbours than that keeps its first 254.
        if (a.ports.size() >= 254 || b.ports.size() >= 254) continue;
        auto pa = static_cast<uint8_t>(a.ports.size() + 1);
        auto pb = static_cast<uint8_t>(b.ports.size() + 1);
        add_port(a, PortRef{b.guid, pb});
        add_port(b, PortRef{a.guid, pa});
        if (!addr.first.empty()) t.address_[PortRef{a.guid, pa}] = addr.first;
        if (!addr.second.empty()) t.address_[PortRef{b.guid, pb}] = addr.second;
    }
    add_hosts(hosts, nodes, t.address_, t.host_port_, add_port, index_of);
    // Consistent by construction: every port names a peer that names it.
    if (auto f = Fabric::build(std::move(nodes)); f) t.fabric_ = std::move(*f);
    return t;
}

TracedFabric TracedFabric::from_snapshot(std::shared_ptr<const Fabric> snapshot) {
    TracedFabric t;
    t.snapshot_ = std::move(snapshot);
    return t;
}

std::optional<Guid> TracedFabric::router(const std::string& key) const {
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return std::nullopt;
    return it->second;
}

std::optional<Guid> TracedFabric::first_router(const std::vector<TraceHop>& hops) const {
    if (hops.empty()) return std::nullopt;
    return router(router_key(hops.front()));
}

std::vector<Lane> TracedFabric::lanes_of(const std::vector<TraceHop>& hops) const {
    std::vector<Lane> out;
    for (size_t i = 1; i < hops.size(); ++i) {
        auto from = router(router_key(hops[i - 1]));
        auto to = router(router_key(hops[i]));
        if (!from || !to || *from == *to) continue;
        const Node* n = fabric().node(*from);
        if (!n) continue;
        for (const Port& p : n->ports) {
            if (!p.peer || p.peer->node != *to) continue;
            const Link* link = fabric().link_of(PortRef{*from, p.num});
            if (!link) break;
            auto index = static_cast<size_t>(link - fabric().links().data());
            out.push_back(lane_of(index, link->a == PortRef{*from, p.num}));
            break;
        }
    }
    return out;
}

std::string TracedFabric::router_name(Guid g) const {
    const Node* n = fabric().node(g);
    return n ? n->description : format_guid(g);
}

std::string TracedFabric::address(PortRef end) const {
    auto it = address_.find(end);
    return it == address_.end() ? "" : it->second;
}

std::optional<Lane> TracedFabric::host_lane(int rank, bool sending) const {
    auto it = host_port_.find(rank);
    if (it == host_port_.end()) return std::nullopt;
    const Link* link = fabric().link_of(it->second);
    if (!link) return std::nullopt;
    const auto index = static_cast<size_t>(link - fabric().links().data());
    // Sending goes from the host's end; lane_of counts from the link's `a` end.
    return lane_of(index, (link->a == it->second) == sending);
}

std::string TracedFabric::end_name(PortRef p) const {
    if (snapshot_) return describe(*snapshot_, p);
    auto it = address_.find(p);
    std::string name = router_name(p.node);
    if (it == address_.end() || it->second == name) return name;
    return fmt::format("{}[{}]", name, it->second);
}

std::string TracedFabric::lane_name(Lane lane) const {
    const Link& l = fabric().links().at(link_of_lane(lane));
    bool forward = (lane & 1U) == 0;
    return fmt::format("{} -> {}", end_name(forward ? l.a : l.b), end_name(forward ? l.b : l.a));
}

std::string TracedFabric::cable_name(size_t link) const {
    const Link& l = fabric().links().at(link);
    return fmt::format("{} <-> {}", end_name(l.a), end_name(l.b));
}

}  // namespace fabscope::perf
