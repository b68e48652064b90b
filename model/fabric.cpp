#include "model/fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "model/fabric_graph.h"

namespace fabscope {

const Port* Node::port(uint8_t num) const {
    auto it = std::lower_bound(ports.begin(), ports.end(), num,
                               [](const Port& p, uint8_t n) { return p.num < n; });
    return it != ports.end() && it->num == num ? &*it : nullptr;
}

Port* Node::port(uint8_t num) {
    return const_cast<Port*>(std::as_const(*this).port(num));  // NOLINT
}

Lid Node::lid() const {
    if (type == NodeType::Switch) {
        const Port* p0 = port(0);
        return p0 ? p0->lid : (ports.empty() ? Lid{0} : ports.front().lid);
    }
    Lid best = 0;
    for (const Port& p : ports) {
        if (p.lid != 0 && (best == 0 || p.lid < best)) best = p.lid;
    }
    return best;
}

bool Node::answers_to(Lid dlid) const {
    if (type == NodeType::Switch) return lid() == dlid;
    for (const Port& p : ports) {
        if (p.lid != 0 && dlid >= p.lid && dlid < p.lid + (1U << (p.lmc & 7U))) return true;
    }
    return false;
}

Fabric::Fabric() {
    // Every empty fabric shares one empty graph.
    static const auto empty = std::make_shared<const FabricGraph>();
    graph_ = empty;
}

Result<Fabric> Fabric::build(std::vector<Node> nodes) {
    Fabric f;
    f.nodes_ = std::move(nodes);
    for (Node& n : f.nodes_) {
        std::sort(n.ports.begin(), n.ports.end(),
                  [](const Port& a, const Port& b) { return a.num < b.num; });
        auto dup = std::adjacent_find(n.ports.begin(), n.ports.end(),
                                      [](const Port& a, const Port& b) { return a.num == b.num; });
        if (dup != n.ports.end()) {
            return make_error(fmt::format("node {} ({}) lists port {} twice", format_guid(n.guid),
                                          n.description, dup->num));
        }
    }
    for (size_t i = 0; i < f.nodes_.size(); ++i) {
        const Node& n = f.nodes_[i];
        if (!f.index_.emplace(n.guid, i).second) {
            return make_error(fmt::format("two nodes have GUID {} (\"{}\" and \"{}\")",
                                          format_guid(n.guid),
                                          f.nodes_[f.index_[n.guid]].description, n.description));
        }
        Lid lid = n.lid();
        if (lid != 0) f.by_lid_.emplace(lid, i);
    }

    auto graph = std::make_shared<FabricGraph>();
    graph->g = FabricGraph::Graph(f.nodes_.size());
    f.link_of_port_.resize(f.nodes_.size());
    for (size_t i = 0; i < f.nodes_.size(); ++i) {
        const Node& n = f.nodes_[i];
        f.link_of_port_[i].assign(n.ports.empty() ? 0 : n.ports.back().num + 1U, 0);
    }
    for (size_t i = 0; i < f.nodes_.size(); ++i) {
        const Node& n = f.nodes_[i];
        for (const Port& p : n.ports) {
            if (!p.peer) continue;
            PortRef self{n.guid, p.num};
            const Port* other = f.port(*p.peer);
            if (!other) {
                return make_error(fmt::format(
                    "{}[{}] names peer {}[{}], which is not in the fabric", format_guid(n.guid),
                    p.num, format_guid(p.peer->node), p.peer->port));
            }
            if (!other->peer || *other->peer != self) {
                return make_error(fmt::format("{}[{}] and {}[{}] disagree about being peers",
                                              format_guid(n.guid), p.num, format_guid(p.peer->node),
                                              p.peer->port));
            }
            if (self < *p.peer) {
                size_t j = *f.index_of(p.peer->node);
                size_t idx = f.links_.size();
                f.links_.push_back(Link{self, *p.peer});
                boost::add_edge(i, j, idx, graph->g);
                f.link_of_port_[i][p.num] = idx + 1;
                f.link_of_port_[j][p.peer->port] = idx + 1;
            } else if (self == *p.peer) {
                return make_error(
                    fmt::format("{}[{}] names itself as its peer", format_guid(n.guid), p.num));
            }
        }
    }
    f.graph_ = std::move(graph);
    return f;
}

const Node* Fabric::node(Guid guid) const {
    auto it = index_.find(guid);
    return it == index_.end() ? nullptr : &nodes_[it->second];
}

std::optional<size_t> Fabric::index_of(Guid guid) const {
    auto it = index_.find(guid);
    if (it == index_.end()) return std::nullopt;
    return it->second;
}

const Port* Fabric::port(PortRef ref) const {
    const Node* n = node(ref.node);
    return n ? n->port(ref.port) : nullptr;
}

const Link* Fabric::link_of(PortRef ref) const {
    auto i = index_of(ref.node);
    if (!i || ref.port >= link_of_port_[*i].size()) return nullptr;
    size_t idx = link_of_port_[*i][ref.port];
    return idx == 0 ? nullptr : &links_[idx - 1];
}

const Node* Fabric::find_by_lid(Lid lid) const {
    auto it = by_lid_.find(lid);
    if (it != by_lid_.end()) return &nodes_[it->second];
    // A CA port may carry an LMC range, or a LID other than the node's lowest.
    for (const Node& n : nodes_) {
        for (const Port& p : n.ports) {
            if (p.lid != 0 && lid >= p.lid && lid < p.lid + (1U << p.lmc)) return &n;
        }
    }
    return nullptr;
}

const Node* Fabric::find(std::string_view key) const {
    for (const Node& n : nodes_) {
        if (n.description == key) return &n;
    }
    bool looks_like_guid = key.size() > 2 && key[0] == '0' && (key[1] == 'x' || key[1] == 'X');
    if (auto g = looks_like_guid ? parse_guid(key) : std::nullopt) {
        if (const Node* n = node(*g)) return n;
        for (const Node& n : nodes_) {
            for (const Port& p : n.ports) {
                if (p.guid == *g) return &n;
            }
        }
    }
    unsigned lid = 0;
    auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), lid);
    if (ec == std::errc() && ptr == key.data() + key.size() && lid > 0 && lid < 0xC000) {
        return find_by_lid(static_cast<Lid>(lid));
    }
    return nullptr;
}

std::string_view name(NodeType t) {
    switch (t) {
        case NodeType::CA: return "CA";
        case NodeType::Switch: return "Switch";
        case NodeType::Router: return "Router";
    }
    return "?";
}

std::string_view name(PortState s) {
    switch (s) {
        case PortState::NoChange: return "NoChange";
        case PortState::Down: return "Down";
        case PortState::Init: return "Initialize";
        case PortState::Armed: return "Armed";
        case PortState::Active: return "Active";
    }
    return "?";
}

std::string_view name(PhysState s) {
    switch (s) {
        case PhysState::NoChange: return "NoChange";
        case PhysState::Sleep: return "Sleep";
        case PhysState::Polling: return "Polling";
        case PhysState::Disabled: return "Disabled";
        case PhysState::Training: return "PortConfigurationTraining";
        case PhysState::LinkUp: return "LinkUp";
        case PhysState::LinkErrorRecovery: return "LinkErrorRecovery";
        case PhysState::PhyTest: return "PhyTest";
    }
    return "?";
}

std::string_view name(SmState s) {
    switch (s) {
        case SmState::NotActive: return "not-active";
        case SmState::Discovering: return "discovering";
        case SmState::Standby: return "standby";
        case SmState::Master: return "master";
    }
    return "?";
}

std::string format_guid(Guid g) {
    return fmt::format("{:#018x}", g);
}

std::optional<Guid> parse_guid(std::string_view s) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.empty() || s.size() > 16) return std::nullopt;
    Guid g = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), g, 16);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return g;
}

std::string describe(const Fabric& f, PortRef ref) {
    const Node* n = f.node(ref.node);
    if (!n || n->description.empty()) return fmt::format("{}[{}]", format_guid(ref.node), ref.port);
    return fmt::format("{}[{}]", n->description, ref.port);
}

}  // namespace fabscope
