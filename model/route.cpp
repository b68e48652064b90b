#include "model/route.h"

#include <fmt/format.h>

#include <set>

namespace fabscope {
namespace {

constexpr uint8_t kUnrouted = 0xFF;

std::string node_name(const Node& n) {
    return n.description.empty() ? format_guid(n.guid) : n.description;
}

}  // namespace

Result<Route> trace_route(const Fabric& f, const Node& src, Lid dlid, uint8_t src_port) {
    Route r;
    r.dlid = dlid;
    const Port* out = nullptr;
    if (src_port) {
        out = src.port(src_port);
        if (!out) return make_error(fmt::format("{} has no port {}", node_name(src), src_port));
    } else {
        for (const Port& p : src.ports) {
            if (p.num != 0 && p.peer) {
                out = &p;
                break;
            }
        }
    }
    if (src.answers_to(dlid)) {
        r.destination = src.guid;
        return r;
    }
    const Node* at = &src;
    if (src.type == NodeType::Switch && !src_port) out = nullptr;  // a switch forwards by its table
    std::set<Guid> seen;
    r.source = PortRef{src.guid, out ? out->num : uint8_t{0}};
    for (size_t step = 0; step < kMaxRouteHops; ++step) {
        if (at->type == NodeType::Switch && !(step == 0 && src_port)) {
            if (!seen.insert(at->guid).second) {
                return make_error(fmt::format("the route to LID {} loops: it comes back to {}",
                                              dlid, node_name(*at)));
            }
            if (at->lft.empty()) {
                return make_error(
                    fmt::format("{} has no forwarding table in this snapshot (sweep with routes)",
                                node_name(*at)));
            }
            uint8_t port = dlid < at->lft.size() ? at->lft[dlid] : kUnrouted;
            if (port == kUnrouted) {
                return make_error(fmt::format("{} has no route for LID {}", node_name(*at), dlid));
            }
            if (port == 0) {
                return make_error(fmt::format("{} delivers LID {} to itself, but it is not its LID",
                                              node_name(*at), dlid));
            }
            out = at->port(port);
            if (!out)
                return make_error(fmt::format("{} routes LID {} to port {}, which it does not have",
                                              node_name(*at), dlid, port));
        }
        if (out && !out->peer && out->link_up()) {
            // The port is up, so a cable is there: the node behind it did not
            // answer the sweep (silent, or MADs to it lost), so it is not in the snapshot.
            return make_error(fmt::format(
                "the route to LID {} leaves {}[{}], which is up, but the node behind it did not "
                "answer the sweep (silent, or MADs to it lost), so the route cannot be followed "
                "past it",
                dlid, node_name(*at), out->num));
        }
        if (!out || !out->peer) {
            return make_error(fmt::format("the route to LID {} leaves {}[{}], which has no link",
                                          dlid, node_name(*at), out ? out->num : 0));
        }
        r.hops.push_back(Hop{PortRef{at->guid, out->num}, *out->peer});
        at = f.node(out->peer->node);
        if (!at)
            return make_error(fmt::format("the route reaches {} which is not in the snapshot",
                                          format_guid(out->peer->node)));
        if (at->answers_to(dlid)) {
            r.destination = at->guid;
            return r;
        }
        if (at->type != NodeType::Switch) {
            return make_error(
                fmt::format("the route to LID {} ends at {}, which does not have that LID", dlid,
                            node_name(*at)));
        }
    }
    return make_error(
        fmt::format("the route to LID {} is longer than {} hops", dlid, kMaxRouteHops));
}

Result<const Node*> resolve_node(const Fabric& f, const std::string& key) {
    if (const Node* n = f.find(key)) return n;
    std::vector<const Node*> matches;
    for (const Node& n : f.nodes()) {
        if (n.description.rfind(key + " ", 0) == 0) matches.push_back(&n);
    }
    if (matches.size() == 1) return matches.front();
    if (matches.size() > 1) {
        return make_error(
            fmt::format("\"{}\" matches {} nodes (\"{}\", \"{}\", ...): give the full description, "
                        "a GUID or a LID",
                        key, matches.size(), matches[0]->description, matches[1]->description));
    }
    return make_error(fmt::format(
        "no node \"{}\" in the fabric (give a description, a GUID such as 0x0002c903..., "
        "or a LID)",
        key));
}

}  // namespace fabscope
