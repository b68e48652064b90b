#include "reports/route_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "model/port_label.h"

namespace fabscope {
namespace {

nlohmann::json end_json(const Fabric& f, PortRef r) {
    nlohmann::json j = to_json(port_label(f, r));
    const Node* n = f.node(r.node);
    j["type"] = n ? name(n->type) : "";
    return j;
}

}  // namespace

std::string render_route(const Fabric& f, const Node& src, const Node& dst, const Route& r) {
    std::string out =
        fmt::format("Route {} (LID {}) -> {} (LID {}), {} hop{}\n", src.description, src.lid(),
                    dst.description, r.dlid, r.hops.size(), r.hops.size() == 1 ? "" : "s");
    size_t width = 0;
    for (const Hop& h : r.hops) width = std::max(width, describe(f, h.from).size());
    for (const Hop& h : r.hops) {
        out += fmt::format("  {:<{}}  ->  {}\n", describe(f, h.from), width, describe(f, h.to));
    }
    return out;
}

nlohmann::json route_json(const Fabric& f, const Node& dst, const Route& r) {
    nlohmann::json hops = nlohmann::json::array();
    for (const Hop& h : r.hops)
        hops.push_back({{"from", end_json(f, h.from)}, {"to", end_json(f, h.to)}});
    return {{"source", end_json(f, r.source)},
            {"destination", dst.description},
            {"destination_guid", format_guid(dst.guid)},
            {"dlid", r.dlid},
            {"complete", true},
            {"hops", std::move(hops)}};
}

std::string render_balance(const Fabric& f, const RoutingAnalysis& a) {
    std::string out = fmt::format("Routing: {}\n", routing_check_detail(a));
    for (bool leaves : {true, false}) {
        for (const SwitchBalance& b : a.balance) {
            if (b.leaf != leaves) continue;
            const Node* n = f.node(b.node);
            out += fmt::format("{} ({}){}\n", n ? n->description : format_guid(b.node),
                               b.leaf ? "leaf" : "switch",
                               b.leaf ? fmt::format(": {} destinations up, spread {:.2f}x",
                                                    b.uplink_destinations, b.uplink_spread)
                                      : "");
            for (const PortLoad& l : b.ports) {
                const Port* p = f.port(l.port);
                out += fmt::format("  [{:>3}] {:>6} LIDs  {}{}\n", l.port.port, l.destinations,
                                   p && p->peer ? describe(f, *p->peer) : "(no link)",
                                   l.uplink ? "  uplink" : "");
            }
        }
    }
    return out;
}

nlohmann::json balance_json(const Fabric& f, const RoutingAnalysis& a,
                            const std::vector<Finding>& findings) {
    nlohmann::json switches = nlohmann::json::array();
    for (const SwitchBalance& b : a.balance) {
        nlohmann::json ports = nlohmann::json::array();
        for (const PortLoad& l : b.ports) {
            const Port* p = f.port(l.port);
            if (!p || !p->peer) continue;  // a port without a cable carries nothing
            ports.push_back({{"port", l.port.port},
                             {"peer", end_json(f, *p->peer)},
                             {"uplink", l.uplink},
                             {"destinations", l.destinations}});
        }
        switches.push_back({{"switch", end_json(f, {b.node, 0})},
                            {"leaf", b.leaf},
                            {"uplink_destinations", b.uplink_destinations},
                            {"uplink_spread", b.uplink_spread},
                            {"ports", std::move(ports)}});
    }
    nlohmann::json found = nlohmann::json::array();
    for (const Finding& x : findings) found.push_back(finding_to_json(f, x));
    return {{"destinations", a.destinations}, {"sources", a.sources},
            {"dependencies", a.dependencies}, {"credit_loops", a.loops.size()},
            {"vl_basis", a.vl_basis},         {"switches", std::move(switches)},
            {"findings", std::move(found)}};
}

}  // namespace fabscope
