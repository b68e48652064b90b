#include "check/routing_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <unordered_map>

#include "check/dependency_cycles.h"
#include "model/port_label.h"

namespace fabscope {
namespace {

constexpr Lane kNoLane = ~Lane{0};

/// A hole, grouped by where it is and what it is, with the LIDs it hits.
struct HoleKey {
    PortRef at;  ///< the switch (port 0) or the port the packets leave by
    std::string kind;
    bool operator<(const HoleKey& o) const { return std::tie(at, kind) < std::tie(o.at, o.kind); }
};

class Walker {
  public:
    explicit Walker(const Fabric& f)
        : f_(f),
          seen_(f.nodes().size(), 0),
          open_(f.nodes().size(), 0),
          out_(f.nodes().size(), kNoLane) {
        const size_t lanes = f.links().size() * 2;
        far_index_.resize(lanes);
        between_switches_.resize(lanes);
        for (Lane l = 0; l < lanes; ++l) {
            far_index_[l] = *f.index_of(far_end(l).node);
            between_switches_[l] = f.nodes()[far_index_[l]].type == NodeType::Switch &&
                                   f.node(near_end(l).node)->type == NodeType::Switch;
        }
    }

    /// The lane out of `ref`, if its port is up and cabled.
    std::optional<Lane> lane_out(PortRef ref) const {
        const Link* l = f_.link_of(ref);
        const Port* p = f_.port(ref);
        if (!l || !p || !p->link_up()) return std::nullopt;
        return lane_of(static_cast<size_t>(l - f_.links().data()), l->a == ref);
    }
    PortRef far_end(Lane lane) const { return lane_target(f_, lane); }
    PortRef near_end(Lane lane) const { return lane_source(f_, lane); }

    void begin_destination() { ++dstamp_; }

    /// Every switch's own entry for `dlid`, walked or not: a host LID a
    /// switch cannot reach is a hole even if no host's route passes there.
    void check_entries(Lid dlid) {
        for (const Node& n : f_.nodes()) {
            if (n.type != NodeType::Switch || n.lft.empty()) continue;
            const uint8_t port = dlid < n.lft.size() ? n.lft[dlid] : 255;
            if (port == 255 || port == 0)
                hole({n.guid, 0}, "none", dlid);
            else if (!lane_out({n.guid, port}))
                hole({n.guid, port}, "down", dlid);
        }
    }

    /// Follows the tables from the lane a source sends on until the
    /// destination, a hole, or a switch already walked for this LID.
    void walk(Lane lane, Guid source, Lid dlid) {
        ++wstamp_;
        std::vector<size_t> walked;
        while (true) {
            const PortRef in = far_end(lane);
            const size_t i = far_index_[lane];
            const Node& n = f_.nodes()[i];
            if (n.answers_to(dlid) || n.type != NodeType::Switch) break;
            if (seen_[i] == dstamp_) {
                if (open_[i] == wstamp_) {
                    hole({n.guid, 0}, "loop", dlid);
                    break;
                }
                if (out_[i] != kNoLane) {
                    if (near_end(out_[i]) == in) hole(in, "back", dlid);
                    depend(lane, out_[i], source, dlid);
                }
                break;
            }
            seen_[i] = dstamp_;
            open_[i] = wstamp_;
            out_[i] = kNoLane;
            walked.push_back(i);
            const uint8_t port = dlid < n.lft.size() ? n.lft[dlid] : 255;
            if (port == 255 || port == 0) {
                hole({n.guid, 0}, "none", dlid);
                break;
            }
            const auto next = lane_out({n.guid, port});
            if (!next) {
                hole({n.guid, port}, "down", dlid);
                break;
            }
            if (port == in.port) hole(in, "back", dlid);
            out_[i] = *next;
            depend(lane, *next, source, dlid);
            lane = *next;
        }
        for (size_t i : walked) open_[i] = 0;
    }

    Dependencies edges;
    std::map<HoleKey, std::set<Lid>> holes;

  private:
    /// Only cables between switches: a host's cable into its leaf has nothing
    /// depending on it and a leaf's cable to a host depends on nothing, so
    /// neither is ever on a loop (and they would be most of the edges).
    void depend(Lane from, Lane to, Guid source, Lid dlid) {
        if (between_switches_[from] && between_switches_[to])
            edges.try_emplace(dependency_key(from, to), DependencyExample{source, dlid});
    }
    void hole(PortRef at, const std::string& kind, Lid dlid) { holes[{at, kind}].insert(dlid); }

    const Fabric& f_;
    std::vector<uint32_t> seen_;  // == dstamp_: walked for the current LID
    std::vector<uint32_t> open_;  // == wstamp_: on the current walk
    std::vector<Lane> out_;
    std::vector<size_t> far_index_;       // by lane: the node it enters
    std::vector<bool> between_switches_;  // by lane
    uint32_t dstamp_ = 0;
    uint32_t wstamp_ = 0;
};

std::string describe_node(const Fabric& f, Guid guid) {
    const Node* n = f.node(guid);
    return n && !n->description.empty() ? n->description : format_guid(guid);
}

/// "h0005 (LID 17), h0006 (LID 19), and 3 more".
std::string name_lids(const Fabric& f, const std::set<Lid>& lids) {
    std::string out;
    size_t shown = 0;
    for (Lid lid : lids) {
        if (shown == 6) {
            out += fmt::format(", and {} more", lids.size() - shown);
            break;
        }
        const Node* n = f.find_by_lid(lid);
        const std::string who = n ? n->description.substr(0, n->description.find(' ')) : "?";
        out += fmt::format("{}{} (LID {})", shown ? ", " : "", who, lid);
        ++shown;
    }
    return out;
}

Finding hole_finding(const Fabric& f, PortRef at, const std::string& kind,
                     const std::set<Lid>& lids) {
    const std::string where = at.port == 0 ? describe_node(f, at.node) : describe(f, at);
    const std::string what =
        fmt::format("{} LID{} in use", lids.size(), lids.size() == 1 ? "" : "s");
    std::string summary;
    if (kind == "none")
        summary = fmt::format(
            "{} has no route for {}: {}: packets to them are dropped there (DLID "
            "mapping errors); the SM has not finished, or lost them",
            where, what, name_lids(f, lids));
    else if (kind == "down")
        summary = fmt::format(
            "{} sends {} out of a port whose link is down: {}: the SM has not "
            "routed around it",
            where, what, name_lids(f, lids));
    else if (kind == "back")
        summary = fmt::format(
            "{} sends {} back out of the port they came in by: {}: a loop in the "
            "forwarding tables (looping errors)",
            where, what, name_lids(f, lids));
    else
        summary = fmt::format(
            "{}: the routes to {} come back to it: {}: a loop in the forwarding "
            "tables",
            where, what, name_lids(f, lids));
    nlohmann::json l = nlohmann::json::array();
    for (Lid lid : lids) l.push_back(lid);
    std::vector<PortRef> ports{at};
    if (const Port* p = at.port ? f.port(at) : nullptr; p && p->peer) ports.push_back(*p->peer);
    return make_finding("route_hole", Severity::Error, std::move(summary), std::move(ports),
                        {{"hole", kind}, {"lids", l}});
}

/// One loop per strongly connected component of the dependency graph, and
/// the lanes of those components into `cyclic`.
std::vector<CreditLoop> find_loops(const Dependencies& edges, std::set<uint32_t>& cyclic) {
    std::vector<CreditLoop> out;
    for (DependencyCycle& c : find_dependency_cycles(edges, &cyclic)) {
        CreditLoop loop;
        loop.lanes = std::move(c.vertices);
        loop.example_source = c.example.source;
        loop.example_dlid = c.example.dlid;
        out.push_back(std::move(loop));
    }
    return out;
}

std::vector<SwitchBalance> balance_of(const Fabric& f, const std::vector<MeshEndpoint>& dests) {
    std::vector<SwitchBalance> out;
    for (const Node& n : f.nodes()) {
        if (n.type != NodeType::Switch || n.lft.empty()) continue;
        SwitchBalance b;
        b.node = n.guid;
        std::map<uint8_t, PortLoad> loads;
        for (const Port& p : n.ports) {
            if (p.num == 0 || !p.peer) continue;
            const Node* peer = f.node(p.peer->node);
            if (peer && peer->type != NodeType::Switch) b.leaf = true;
            PortLoad& l = loads[p.num];
            l.port = {n.guid, p.num};
            l.peer = p.peer->node;
            l.uplink = peer && peer->type == NodeType::Switch;
        }
        for (const MeshEndpoint& d : dests) {
            for (uint32_t v = d.lid; v < d.lid + (1U << d.lmc); ++v) {
                const auto lid = static_cast<Lid>(v);
                const uint8_t port = lid < n.lft.size() ? n.lft[lid] : 255;
                auto it = loads.find(port);
                if (it == loads.end()) continue;
                ++it->second.destinations;
                if (it->second.uplink && d.leaf != n.guid) ++b.uplink_destinations;
            }
        }
        size_t up = 0;
        size_t most = 0;
        for (const auto& [num, l] : loads) {
            const Port* p = n.port(num);
            if (l.uplink && p && p->link_up()) {
                ++up;
                most = std::max(most, l.destinations);
            }
            if (l.destinations > 0 || l.uplink) b.ports.push_back(l);
        }
        b.uplinks_active = up;
        b.uplink_most = most;
        if (b.leaf && up > 0 && b.uplink_destinations > 0)
            b.uplink_spread = static_cast<double>(most) * static_cast<double>(up) /
                              static_cast<double>(b.uplink_destinations);
        out.push_back(std::move(b));
    }
    return out;
}

}  // namespace

bool SwitchBalance::imbalanced(double limit) const {
    if (!leaf || uplinks_active == 0 || uplink_spread <= limit) return false;
    const size_t even = (uplink_destinations + uplinks_active - 1) / uplinks_active;
    return uplink_most > even;
}

RoutingAnalysis analyse_routing(const Fabric& f) {
    RoutingAnalysis a;
    if (!has_routes(f)) return a;
    const std::vector<MeshEndpoint> ends = endpoints_from_fabric(f);
    a.sources = ends.size();
    Walker w(f);
    for (const MeshEndpoint& d : ends) {
        for (uint32_t v = d.lid; v < d.lid + (1U << d.lmc); ++v) {
            const auto dlid = static_cast<Lid>(v);
            ++a.destinations;
            w.begin_destination();
            w.check_entries(dlid);
            for (const MeshEndpoint& s : ends) {
                if (s.node == d.node) continue;
                if (auto first = w.lane_out({s.node, s.port})) w.walk(*first, s.node, dlid);
            }
        }
    }
    a.dependencies = w.edges.size();
    std::set<uint32_t> cyclic;
    a.loops = find_loops(w.edges, cyclic);
    a.cyclic_lanes.assign(cyclic.begin(), cyclic.end());
    if (!a.loops.empty()) {
        // Until a live validate checks them per VL (check/vl_credit_loops.h).
        a.vl_basis = "one VL assumed: no SL read";
    }
    for (const auto& [key, lids] : w.holes)
        a.holes.push_back(hole_finding(f, key.at, key.kind, lids));
    a.balance = balance_of(f, ends);
    return a;
}

namespace {

nlohmann::json port_json(const Fabric& f, PortRef r) {
    return to_json(port_label(f, r));
}

Finding loop_finding(const Fabric& f, const CreditLoop& loop) {
    Walker w(f);
    std::string path;
    nlohmann::json lanes = nlohmann::json::array();
    std::vector<PortRef> where;
    for (Lane l : loop.lanes) {
        path += fmt::format("{}{}", path.empty() ? "" : ", ", describe_lane(f, l));
        lanes.push_back(
            {{"from", port_json(f, w.near_end(l))}, {"to", port_json(f, w.far_end(l))}});
        where.push_back(w.near_end(l));
        where.push_back(w.far_end(l));
    }
    const Node* src = f.node(loop.example_source);
    const Node* dst = f.find_by_lid(loop.example_dlid);
    auto first_word = [](const Node* n) {
        return n ? n->description.substr(0, n->description.find(' ')) : std::string("?");
    };
    std::set<int> vls(loop.vls.begin(), loop.vls.end());
    const std::string on = vls.size() > 1 ? fmt::format("VLs {}", fmt::join(vls, ", "))
                                          : fmt::format("VL {}", loop.vl);
    return make_finding(
        "credit_loop", Severity::Error,
        fmt::format("credit loop on {} over {} cables: {}, and back to the first: these routes "
                    "can deadlock a busy fabric with no error counter moving (e.g. {} to {}, LID "
                    "{}, holds the last and waits for the first; {})",
                    on, loop.lanes.size(), path, first_word(src), first_word(dst),
                    loop.example_dlid,
                    loop.per_vl ? "VLs from each flow's SL through the switches' SL-to-VL tables"
                                : "all traffic taken to be on one VL"),
        std::move(where),
        {{"vl", loop.vl},
         {"vl_from", loop.per_vl ? "sl_to_vl" : "one_vl"},
         {"lanes", lanes},
         {"example", {{"source", first_word(src)}, {"dlid", loop.example_dlid}}}});
}

Finding imbalance_finding(const Fabric& f, const SwitchBalance& b, double limit) {
    const PortLoad* top = nullptr;
    size_t up = 0;
    nlohmann::json uplinks = nlohmann::json::array();
    for (const PortLoad& l : b.ports) {
        const Port* p = f.port(l.port);
        if (!l.uplink || !p || !p->link_up()) continue;
        ++up;
        if (!top || l.destinations > top->destinations) top = &l;
        uplinks.push_back({{"port", l.port.port},
                           {"peer", port_json(f, *p->peer)},
                           {"destinations", l.destinations}});
    }
    const double share =
        static_cast<double>(top->destinations) / static_cast<double>(b.uplink_destinations);
    std::vector<PortRef> where{top->port};
    if (const Port* p = f.port(top->port); p && p->peer) where.push_back(*p->peer);
    return make_finding(
        "route_imbalance", Severity::Warning,
        fmt::format("{} carries {} of the {} destinations {} routes up ({:.0f} %), {:.2f}x the "
                    "mean over its {} uplinks (limit {:.2f}x): one uplink takes what others "
                    "should (a reroute around a failed link, or an SM that balances badly)",
                    describe_with_link(f, top->port), top->destinations, b.uplink_destinations,
                    describe_node(f, b.node), share * 100, b.uplink_spread, up, limit),
        std::move(where),
        {{"spread", b.uplink_spread},
         {"limit", limit},
         {"destinations", b.uplink_destinations},
         {"uplinks", uplinks}});
}

}  // namespace

std::vector<Finding> routing_findings(const Fabric& f, const RoutingAnalysis& a, double imbalance) {
    std::vector<Finding> out;
    for (const CreditLoop& l : a.loops) out.push_back(loop_finding(f, l));
    out.insert(out.end(), a.holes.begin(), a.holes.end());
    for (const SwitchBalance& b : a.balance) {
        if (b.imbalanced(imbalance)) out.push_back(imbalance_finding(f, b, imbalance));
    }
    return out;
}

std::string routing_check_detail(const RoutingAnalysis& a) {
    double spread = 0;
    for (const SwitchBalance& b : a.balance) spread = std::max(spread, b.uplink_spread);
    std::string loops = a.loops.empty() ? std::string("no credit loop")
                                        : fmt::format("{} credit loop{}", a.loops.size(),
                                                      a.loops.size() == 1 ? "" : "s");
    if (!a.vl_basis.empty()) loops += fmt::format(" ({})", a.vl_basis);
    return fmt::format(
        "{} host LIDs from {} ports, {} dependencies between switch cables: {}; uplink spread at "
        "most {:.1f}x",
        a.destinations, a.sources, a.dependencies, loops, spread);
}

}  // namespace fabscope
