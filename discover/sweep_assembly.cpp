#include "discover/sweep_assembly.h"

#include <unordered_map>

namespace fabscope {

Result<Fabric> assemble_fabric(SweepContext& ctx) {
    std::vector<Node> out;
    out.reserve(ctx.order.size());
    for (Guid g : ctx.order) {
        SweptNode& n = ctx.nodes.at(g);
        Node node = assemble_node(n.replies);
        node.lft = std::move(n.lft);
        node.pma_tick = n.pma_tick;
        for (Port& p : node.ports) {
            if (auto c = n.counters.find(p.num); c != n.counters.end()) p.counters = c->second;
            if (auto s = n.sm.find(p.num); s != n.sm.end()) p.sm = s->second;
            if (auto k = n.pkeys.find(p.num); k != n.pkeys.end()) p.pkeys = std::move(k->second);
        }
        out.push_back(std::move(node));
        // The replies are spent: give their memory back as the nodes are
        // built, so a large fabric is not held twice at the peak.
        ctx.nodes.erase(g);
    }
    std::unordered_map<Guid, size_t> index;
    for (size_t i = 0; i < out.size(); ++i) index[out[i].guid] = i;
    for (const auto& [a, b] : ctx.peers) {
        Port* pa = out[index.at(a.node)].port(a.port);
        Port* pb = index.count(b.node) ? out[index.at(b.node)].port(b.port) : nullptr;
        if (pa && pb) pa->peer = b;
    }
    ctx.peers = {};
    index = {};
    return Fabric::build(std::move(out));
}

}  // namespace fabscope
