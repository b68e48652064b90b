#include "model/paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "model/route.h"

namespace fabscope {
namespace {

constexpr uint8_t kNoRoute = 0xFF;

std::string short_name(const Node& n) {
    if (n.description.empty()) return format_guid(n.guid);
    auto space = n.description.find(' ');
    return n.type == NodeType::Switch ? n.description : n.description.substr(0, space);
}

/// The lane a packet takes leaving `from` (node, port), if the port is cabled.
std::optional<Lane> lane_leaving(const Fabric& f, PortRef from) {
    const Link* link = f.link_of(from);
    if (!link) return std::nullopt;
    auto index = static_cast<size_t>(link - f.links().data());
    return lane_of(index, link->a == from);
}

}  // namespace

bool has_routes(const Fabric& f) {
    return std::any_of(f.nodes().begin(), f.nodes().end(),
                       [](const Node& n) { return n.type == NodeType::Switch && !n.lft.empty(); });
}

std::vector<MeshEndpoint> endpoints_from_fabric(const Fabric& f) {
    std::vector<MeshEndpoint> out;
    for (const Node& n : f.nodes()) {
        if (n.type != NodeType::CA) continue;
        for (const Port& p : n.ports) {
            if (p.num == 0 || p.lid == 0 || !p.link_up() || !p.peer) continue;
            MeshEndpoint e;
            e.node = n.guid;
            e.port = p.num;
            e.lid = p.lid;
            e.lmc = static_cast<uint8_t>(p.lmc & 7U);
            e.name = short_name(n);
            if (n.num_ports > 1) e.name += fmt::format("/{}", p.num);
            const Node* peer = f.node(p.peer->node);
            if (peer && peer->type == NodeType::Switch) e.leaf = peer->guid;
            out.push_back(std::move(e));
        }
    }
    return out;
}

std::vector<Lane> fabric_lanes(const Fabric& f) {
    std::vector<Lane> out;
    const auto& links = f.links();
    for (size_t i = 0; i < links.size(); ++i) {
        const Node* a = f.node(links[i].a.node);
        const Node* b = f.node(links[i].b.node);
        if (!a || !b || a->type != NodeType::Switch || b->type != NodeType::Switch) continue;
        const Port* pa = f.port(links[i].a);
        if (!pa || !pa->link_up()) continue;
        out.push_back(lane_of(i, true));
        out.push_back(lane_of(i, false));
    }
    return out;
}

std::string describe_lane(const Fabric& f, Lane lane) {
    const Link& l = f.links().at(link_of_lane(lane));  // a lane from a trace may be any number
    bool forward = (lane & 1U) == 0;
    return fmt::format("{} -> {}", describe(f, forward ? l.a : l.b),
                       describe(f, forward ? l.b : l.a));
}

std::string describe_cable(const Fabric& f, size_t link) {
    const Link& l = f.links().at(link);
    return fmt::format("{} <-> {}", describe(f, l.a), describe(f, l.b));
}

const FlowPath& IbPathOracle::from_switch(Guid sw, Lid dlid) const {
    // Switch GUIDs are 64-bit, but a fabric's GUIDs differ in far fewer bits
    // than a collision would need; the key mixes both.
    uint64_t key = (sw * 0x9E3779B97F4A7C15ULL) ^ dlid;
    auto [it, fresh] = cache_.try_emplace(key);
    if (!fresh) return it->second;
    FlowPath& path = it->second;
    const Node* at = fabric_.node(sw);
    for (size_t step = 0; at; ++step) {
        if (step == kMaxRouteHops) {
            path.error =
                fmt::format("the route to LID {} is longer than {} hops", dlid, kMaxRouteHops);
            break;
        }
        if (at->answers_to(dlid)) return path;
        if (at->type != NodeType::Switch) {
            path.error = fmt::format("the route to LID {} ends at {}, which does not have it", dlid,
                                     short_name(*at));
            break;
        }
        if (at->lft.empty()) {
            path.error =
                fmt::format("{} has no forwarding table (sweep with --routes)", short_name(*at));
            break;
        }
        uint8_t out = dlid < at->lft.size() ? at->lft[dlid] : kNoRoute;
        if (out == kNoRoute || out == 0) {
            path.error = fmt::format("{} has no route for LID {}", short_name(*at), dlid);
            break;
        }
        auto lane = lane_leaving(fabric_, PortRef{at->guid, out});
        if (!lane) {
            path.error = fmt::format("{} routes LID {} out of port {}, which has no link",
                                     short_name(*at), dlid, out);
            break;
        }
        path.lanes.push_back(*lane);
        const Link& link = fabric_.links()[link_of_lane(*lane)];
        at = fabric_.node((*lane & 1U) == 0 ? link.b.node : link.a.node);
    }
    if (path.error.empty() && !at)
        path.error = fmt::format("the route to LID {} leaves the snapshot", dlid);
    if (!path.error.empty()) path.lanes.clear();
    return path;
}

FlowPath IbPathOracle::path(const MeshEndpoint& src, const MeshEndpoint& dst, int variant) const {
    FlowPath out;
    auto first = lane_leaving(fabric_, PortRef{src.node, src.port});
    if (!first) {
        out.error = fmt::format("{} port {} has no link", src.name, src.port);
        return out;
    }
    auto dlid = static_cast<Lid>(dst.lid + variant);
    const Link& link = fabric_.links()[link_of_lane(*first)];
    Guid next = (*first & 1U) == 0 ? link.b.node : link.a.node;
    out.lanes.push_back(*first);
    const Node* next_node = fabric_.node(next);
    if (next_node && next_node->answers_to(dlid)) return out;
    const FlowPath& rest = from_switch(next, dlid);
    if (!rest.ok()) {
        out.lanes.clear();
        out.error = rest.error;
        return out;
    }
    out.lanes.insert(out.lanes.end(), rest.lanes.begin(), rest.lanes.end());
    return out;
}

size_t TracedPathOracle::KeyHash::operator()(const Key& k) const {
    return std::hash<uint64_t>{}(k.src * 0x9E3779B97F4A7C15ULL ^ k.dst ^
                                 (static_cast<uint64_t>(k.variant) << 56));
}

void TracedPathOracle::add(Guid src, Guid dst, int variant, std::vector<Lane> lanes) {
    if (pool_.size() + lanes.size() > UINT32_MAX)
        throw std::length_error("more than 4 billion lanes of traced paths");
    const Span at{static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(lanes.size())};
    pool_.insert(pool_.end(), lanes.begin(), lanes.end());
    const bool fresh = paths_.insert_or_assign(Key{src, dst, variant}, at).second;
    auto& to = partners_[src];
    // A destination's variants come together (one trace of each port); one
    // that came apart would be listed twice, which only costs a second look.
    if (fresh && (to.empty() || to.back() != dst)) to.push_back(dst);
}

const std::vector<Guid>& TracedPathOracle::partners(Guid src) const {
    static const std::vector<Guid> kNone;
    auto it = partners_.find(src);
    return it == partners_.end() ? kNone : it->second;
}

FlowPath TracedPathOracle::path(const MeshEndpoint& src, const MeshEndpoint& dst,
                                int variant) const {
    FlowPath out;
    auto it = paths_.find(Key{src.node, dst.node, variant});
    if (it == paths_.end()) {
        out.error =
            fmt::format("no traced path from {} to {} (variant {})", src.name, dst.name, variant);
        return out;
    }
    const auto first = pool_.begin() + it->second.offset;
    out.lanes.assign(first, first + it->second.count);
    return out;
}

uint16_t sport_for_flow_label(uint32_t flow_label) {
    uint32_t low = flow_label & 0x3FFFU;
    uint32_t high = flow_label & 0xFC000U;
    low ^= high >> 14;
    return static_cast<uint16_t>(low | 0xC000U);
}

std::optional<uint32_t> flow_label_for_sport(uint16_t sport) {
    if (sport < 0xC000U) return std::nullopt;
    uint32_t low = sport & 0x3FFFU;
    // Label 0 means "no label" (the kernel then hashes the QP numbers), so
    // the 14 low bits 0 are reached through a high bit instead.
    if (low != 0) return low;
    return (1U << 14) | 1U;
}

}  // namespace fabscope
