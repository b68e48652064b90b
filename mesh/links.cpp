#include "mesh/links.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "mesh/paths_ib.h"
#include "mesh/paths_traced.h"
#include "trace/flow_path.h"

namespace fabscope::perf {
namespace {

/// The host end of a host's own cable (none for a cable between switches).
std::optional<PortRef> host_end(const TracedFabric& f, const Link& l) {
    for (PortRef p : {l.a, l.b}) {
        const Node* n = f.fabric().node(p.node);
        if (n && n->type != NodeType::Switch) return p;
    }
    return std::nullopt;
}

/// A lane by its ends; a host's cable one way by the host side it is:
/// "a2 (receiving) or its cable from l1[10.9.11.1]".
std::string lane_label(const TracedFabric& f, Lane lane) {
    const Link& l = f.fabric().links().at(link_of_lane(lane));
    auto host = host_end(f, l);
    if (!host) return f.lane_name(lane);
    const PortRef from = (lane & 1U) == 0 ? l.a : l.b;
    const PortRef other = *host == l.a ? l.b : l.a;
    const bool sending = from == *host;
    return fmt::format("{} ({}) or its cable {} {}", f.end_name(*host),
                       sending ? "sending" : "receiving", sending ? "to" : "from",
                       f.end_name(other));
}

/// The lane suspects of one direction each, by cable (both directions of
/// one cable are one cable to replace), the most slow flows first.
std::vector<CableSuspect> cable_suspects(const MeshLinks& m) {
    std::map<size_t, CableSuspect> by_link;
    for (size_t i = 0; i < m.suspects.size(); ++i) {
        const LinkSuspect& s = m.suspects[i];
        if (s.lanes.size() != 1) continue;
        size_t link = link_of_lane(s.lanes.front());
        CableSuspect& c = by_link[link];
        c.link = link;
        c.name = m.fabric.cable_name(link);
        const Link& cable = m.fabric.fabric().links().at(link);
        if (auto host = host_end(m.fabric, cable)) c.host = m.fabric.end_name(*host);
        c.directions.push_back(i);
        c.slow_flows += s.slow_flows;
        c.own_slow += s.own_slow;
        c.own_weight += s.own_weight;
        c.total_flows += s.total_flows;
    }
    std::vector<CableSuspect> out;
    out.reserve(by_link.size());
    for (auto& [_, c] : by_link) out.push_back(std::move(c));
    std::stable_sort(out.begin(), out.end(), [](const CableSuspect& a, const CableSuspect& b) {
        return a.own_weight > b.own_weight;
    });
    return out;
}

}  // namespace

MeshLinks analyse_links(const MeshRunData& d, const std::vector<double>& ratio,
                        const std::vector<char>& slow, const std::vector<double>& strength,
                        const LocalizeOptions& o) {
    MeshLinks m;
    m.routed = d.routes != nullptr;
    // RoCE: the paths traced to plan the rounds, then the flows' own.
    std::vector<std::vector<TraceHop>> hops(m.routed ? 0 : d.flows.size());
    for (size_t i = 0; i < hops.size(); ++i) hops[i] = path_hops(d.flows[i].path.unpack());
    std::vector<std::vector<TraceHop>> known;
    if (!m.routed) known = d.trace_hops.all();  // each distinct path once
    for (const auto& h : hops) {
        if (!h.empty()) known.push_back(h);
    }
    // The hosts' own cables are lanes too: a slow NIC or host cable then
    // explains its flows, and no leaf-spine cable is blamed for them.
    const std::vector<TracedHost> hosts = m.routed ? std::vector<TracedHost>{} : traced_hosts(d);
    m.fabric =
        m.routed ? TracedFabric::from_snapshot(d.routes) : TracedFabric::from_paths(known, hosts);
    std::map<int, std::string> leaf_of;
    for (const TracedHost& h : hosts) leaf_of[h.rank] = h.first_hop;
    m.flow_lanes.resize(d.flows.size());
    const IbFlowRoutes routes(d);
    // A flow that is evidence lends its lanes to the localization (moved,
    // not copied: millions of flows) and has them back at the end.
    std::vector<FlowObservation> obs;
    obs.reserve(d.flows.size());
    m.measured.reserve(d.flows.size());
    std::set<Lane> crossed;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const MeshFlow& f = d.flows[i];
        const bool same_leaf =
            leaf_of.count(f.src) && leaf_of.count(f.dst) && leaf_of[f.src] == leaf_of[f.dst];
        FlowPath route = m.routed ? routes.path(f) : FlowPath{};
        if (m.routed && route.ok()) {
            ++m.traced;
            m.flow_lanes[i] = std::move(route.lanes);
        } else if (!m.routed && (!hops[i].empty() || same_leaf)) {
            // No hops between two hosts of one leaf: no router on the way.
            ++m.traced;
            m.flow_lanes[i] = with_host_lanes(m.fabric, f.src, f.dst, m.fabric.lanes_of(hops[i]));
        }
        if (!flow_is_evidence(d, f)) continue;
        crossed.insert(m.flow_lanes[i].begin(), m.flow_lanes[i].end());
        obs.push_back({.test = i,
                       .src = static_cast<size_t>(f.src),
                       .dst = static_cast<size_t>(f.dst),
                       .lanes = std::move(m.flow_lanes[i]),
                       .slow = slow[i] != 0,
                       .ratio = ratio[i],
                       .strength = strength[i]});
        m.measured.push_back(i);
    }
    hops = {};
    // A host's cable is tested when the host sent, and when it received.
    std::set<int> sent, received;
    for (size_t i : m.measured) {
        sent.insert(d.flows[i].src);
        received.insert(d.flows[i].dst);
    }
    m.coverage.endpoints =
        static_cast<size_t>(std::count_if(d.ranks.begin(), d.ranks.end(), [](const MeshRank& r) {
            return r.error.empty() && !r.coordinator;
        }));
    m.coverage.senders = sent.size();
    m.coverage.receivers = received.size();
    std::vector<Lane> all = m.fabric.lanes();
    m.coverage.lanes = all.size();
    for (Lane l : all) {
        m.coverage.crossed += crossed.count(l);
        if (!crossed.count(l)) m.uncrossed.push_back(l);
    }
    m.localization = localize(obs, o);
    for (Lane l : m.localization.undersampled) m.undersampled.push_back(l);
    for (const Suspect& s : m.localization.suspects) {
        LinkSuspect ls;
        ls.lanes = s.lanes;
        for (Lane l : s.lanes) {
            if (!ls.name.empty()) ls.name += " or ";
            ls.name += lane_label(m.fabric, l);
        }
        ls.slow_flows = s.slow_flows;
        ls.own_slow = s.own_slow;
        ls.own_weight = s.own_weight;
        ls.total_flows = s.total_flows;
        double sum = 0;
        for (size_t e : s.evidence) {
            ls.evidence.push_back(m.measured[e]);
            sum += obs[e].ratio;
        }
        ls.mean_ratio = s.evidence.empty() ? 0 : sum / static_cast<double>(s.evidence.size());
        for (size_t k = 0; k < obs.size(); ++k) {
            const auto& lanes = obs[k].lanes;
            if (!obs[k].slow &&
                std::find(lanes.begin(), lanes.end(), s.lanes.front()) != lanes.end())
                ls.healthy.push_back(m.measured[k]);
        }
        ls.slow_counters = sum_flow_counters(d, ls.evidence, FlowEnd::Both);
        ls.healthy_counters = sum_flow_counters(d, ls.healthy, FlowEnd::Both);
        if (m.routed && ls.lanes.size() == 1)
            ls.switch_ports = lane_port_evidence(*d.routes, ls.lanes.front(), d.switch_counters);
        m.suspects.push_back(std::move(ls));
    }
    m.cables = cable_suspects(m);
    for (FlowObservation& x : obs) m.flow_lanes[x.test] = std::move(x.lanes);
    return m;
}

}  // namespace fabscope::perf
