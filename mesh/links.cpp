#include "mesh/links.h"

#include <algorithm>
#include <map>
#include <set>

#include "mesh/paths_ib.h"

namespace fabscope::perf {

std::vector<TraceHop> path_hops(const nlohmann::json& path) {
    if (!path.is_object()) return {};
    try {
        return flow_trace_from_json(path).hops;
    } catch (const std::exception&) {
        return {};
    }
}

MeshLinks analyse_links(const MeshRunData& d, const std::vector<double>& ratio,
                        const std::vector<char>& slow, const std::vector<double>& strength,
                        const LocalizeOptions& o) {
    MeshLinks m;
    std::vector<std::vector<TraceHop>> hops(d.flows.size());
    for (size_t i = 0; i < d.flows.size(); ++i) hops[i] = path_hops(d.flows[i].path);
    // The paths traced to plan the rounds, then the flows' own.
    std::vector<std::vector<TraceHop>> known;
    for (const MeshTrace& t : d.traces) {
        if (!t.hops.empty()) known.push_back(t.hops);
    }
    for (const auto& h : hops) {
        if (!h.empty()) known.push_back(h);
    }
    m.routed = d.routes != nullptr;
    m.fabric = m.routed ? TracedFabric::from_snapshot(d.routes) : TracedFabric::from_paths(known);
    m.flow_lanes.resize(d.flows.size());
    std::vector<FlowPath> routes = ib_flow_lanes(d);
    std::vector<FlowObservation> obs;
    std::set<Lane> crossed;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        if (m.routed && routes[i].ok()) {
            ++m.traced;
            m.flow_lanes[i] = std::move(routes[i].lanes);
        } else if (!m.routed && !hops[i].empty()) {
            ++m.traced;
            m.flow_lanes[i] = m.fabric.lanes_of(hops[i]);
        }
        const MeshFlow& f = d.flows[i];
        if (!flow_is_evidence(d, f)) continue;
        crossed.insert(m.flow_lanes[i].begin(), m.flow_lanes[i].end());
        obs.push_back({.test = i,
                       .src = static_cast<size_t>(f.src),
                       .dst = static_cast<size_t>(f.dst),
                       .lanes = m.flow_lanes[i],
                       .slow = slow[i] != 0,
                       .ratio = ratio[i],
                       .strength = strength[i]});
        m.measured.push_back(i);
    }
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
            ls.name += m.fabric.lane_name(l);
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
    std::map<size_t, CableSuspect> by_link;
    for (size_t i = 0; i < m.suspects.size(); ++i) {
        const LinkSuspect& s = m.suspects[i];
        if (s.lanes.size() != 1) continue;
        size_t link = link_of_lane(s.lanes.front());
        CableSuspect& c = by_link[link];
        c.link = link;
        c.name = m.fabric.cable_name(link);
        c.directions.push_back(i);
        c.slow_flows += s.slow_flows;
        c.own_slow += s.own_slow;
        c.own_weight += s.own_weight;
        c.total_flows += s.total_flows;
    }
    for (auto& [_, c] : by_link) m.cables.push_back(std::move(c));
    std::stable_sort(
        m.cables.begin(), m.cables.end(),
        [](const CableSuspect& a, const CableSuspect& b) { return a.own_weight > b.own_weight; });
    return m;
}

}  // namespace fabscope::perf
