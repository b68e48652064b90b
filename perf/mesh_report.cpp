#include "perf/mesh_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "perf/localize.h"

namespace fabscope::perf {

namespace {

using json = nlohmann::json;

/// Each endpoint as a "link" of its own: lane 2r is what rank r sends,
/// 2r + 1 what it receives. A flow crosses its source's send lane and its
/// destination's receive lane, so localize() finds endpoints as it finds cables.
Lane send_lane(int rank) {
    return lane_of(static_cast<size_t>(rank), true);
}
Lane receive_lane(int rank) {
    return lane_of(static_cast<size_t>(rank), false);
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string host_of(const MeshRunData& d, int r) {
    if (r >= 0 && static_cast<size_t>(r) < d.ranks.size() && !d.ranks[r].host.empty())
        return d.ranks[r].host;
    return fmt::format("rank {}", r);
}

json nullable_round(int r) {
    return r < 0 ? json(nullptr) : json(r + 1);
}

}  // namespace

MeshAnalysis analyse_mesh(const MeshRunData& d, double slow_ratio) {
    MeshAnalysis a;
    a.slow_ratio = slow_ratio;
    a.ratio.assign(d.flows.size(), -1.0);
    a.slow.assign(d.flows.size(), 0);
    auto plane_of = [&](const MeshFlow& f) {
        return static_cast<size_t>(f.src) < d.ranks.size() ? d.ranks[f.src].plane : 0;
    };
    std::map<int, std::vector<double>> by_plane;
    for (const MeshFlow& f : d.flows) {
        if (f.measured && f.ok) by_plane[plane_of(f)].push_back(f.avg_gbps);
    }
    std::map<int, double> med;
    for (const auto& [plane, v] : by_plane) {
        med[plane] = median(v);
        a.plane_median_gbps.emplace_back(plane, med[plane]);
    }
    std::vector<FlowObservation> obs;
    std::vector<size_t> obs_flow;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const MeshFlow& f = d.flows[i];
        if (!f.measured) continue;
        double m = med.count(plane_of(f)) ? med[plane_of(f)] : 0;
        a.ratio[i] = f.ok && m > 0 ? f.avg_gbps / m : 0;
        a.slow[i] = a.ratio[i] < slow_ratio;
        obs.push_back({.test = i,
                       .src = static_cast<size_t>(f.src),
                       .dst = static_cast<size_t>(f.dst),
                       .lanes = {send_lane(f.src), receive_lane(f.dst)},
                       .slow = a.slow[i] != 0,
                       .ratio = a.ratio[i]});
        obs_flow.push_back(i);
    }
    Localization l = localize(obs);
    for (const Suspect& s : l.suspects) {
        EndpointSuspect e;
        for (Lane lane : s.lanes)
            e.sides.push_back({static_cast<int>(link_of_lane(lane)), (lane & 1U) == 0});
        e.slow_flows = s.slow_flows;
        e.total_flows = s.total_flows;
        for (size_t o : s.evidence) e.evidence.push_back(obs_flow[o]);
        a.suspects.push_back(std::move(e));
    }
    return a;
}

std::string describe(const MeshRunData& d, const EndpointSuspect& s) {
    std::string out;
    for (const EndpointSide& side : s.sides) {
        if (!out.empty()) out += " or ";
        out +=
            fmt::format("{} ({})", host_of(d, side.rank), side.sending ? "sending" : "receiving");
    }
    return out;
}

json mesh_run_json(const MeshRunData& d, const MeshAnalysis& a) {
    json ranks = json::array();
    for (const MeshRank& r : d.ranks) {
        ranks.push_back({{"rank", r.rank},
                         {"host", r.host},
                         {"device", r.device},
                         {"port", r.port},
                         {"plane", r.plane},
                         {"ok", r.error.empty() && !r.gone},
                         {"error", r.error},
                         {"gone", r.gone},
                         {"gone_round", r.gone ? nullable_round(r.gone_round) : json(nullptr)}});
    }
    json rounds = json::array();
    for (size_t i = 0; i < d.rounds.size(); ++i) {
        json pairs = json::array();
        for (const MeshPair& p : d.rounds[i])
            pairs.push_back({{"a", p.a}, {"b", p.b}, {"both_ways", p.both_ways}});
        rounds.push_back({{"round", i + 1}, {"pairs", pairs}});
    }
    json flows = json::array();
    size_t measured = 0;
    size_t ok = 0;
    size_t slow = 0;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const MeshFlow& f = d.flows[i];
        measured += f.measured;
        ok += f.measured && f.ok;
        slow += a.slow[i];
        flows.push_back({{"round", f.round + 1},
                         {"src", f.src},
                         {"dst", f.dst},
                         {"src_host", host_of(d, f.src)},
                         {"dst_host", host_of(d, f.dst)},
                         {"measured", f.measured},
                         {"ok", f.ok},
                         {"error", f.error},
                         {"avg_gbps", f.avg_gbps},
                         {"peak_gbps", f.peak_gbps},
                         {"min_window_gbps", f.min_window_gbps},
                         {"bytes", f.bytes},
                         {"seconds", f.seconds},
                         {"ratio", a.ratio[i] < 0 ? json(nullptr) : json(a.ratio[i])},
                         {"slow", a.slow[i] != 0}});
    }
    json planes = json::array();
    for (const auto& [plane, m] : a.plane_median_gbps)
        planes.push_back({{"plane", plane}, {"median_gbps", m}});
    json suspects = json::array();
    for (const EndpointSuspect& s : a.suspects) {
        json sides = json::array();
        for (const EndpointSide& side : s.sides) {
            sides.push_back({{"rank", side.rank},
                             {"host", host_of(d, side.rank)},
                             {"device", d.ranks.at(side.rank).device},
                             {"direction", side.sending ? "send" : "receive"}});
        }
        suspects.push_back({{"name", describe(d, s)},
                            {"endpoints", sides},
                            {"localized", s.sides.size() == 1},
                            {"slow_flows", s.slow_flows},
                            {"total_flows", s.total_flows},
                            {"evidence", s.evidence}});
    }
    json findings = json::array();
    for (const MeshFinding& f : d.findings) {
        findings.push_back({{"kind", f.kind},
                            {"rank", f.rank < 0 ? json(nullptr) : json(f.rank)},
                            {"host", f.rank < 0 ? json(nullptr) : json(host_of(d, f.rank))},
                            {"round", nullable_round(f.round)},
                            {"message", f.message}});
    }
    return {{"version", 1},
            {"status", d.status},
            {"complete", d.status == "complete"},
            {"pattern", d.pattern},
            {"launcher", d.launcher},
            {"spec", spec_to_json(d.spec)},
            {"slow_ratio", a.slow_ratio},
            {"wall_seconds", d.wall_seconds},
            {"ranks", ranks},
            {"rounds", rounds},
            {"rounds_done", d.rounds_done},
            {"flows", flows},
            {"planes", planes},
            {"suspects", suspects},
            {"findings", findings},
            {"totals",
             {{"flows", d.flows.size()},
              {"measured", measured},
              {"ok", ok},
              {"slow", slow},
              {"suspects", a.suspects.size()},
              {"findings", d.findings.size()}}}};
}

std::vector<std::string> mesh_run_summary(const MeshRunData& d, const MeshAnalysis& a) {
    std::vector<std::string> lines;
    for (const EndpointSuspect& s : a.suspects) {
        double sum = 0;
        for (size_t i : s.evidence) sum += a.ratio[i];
        lines.push_back(fmt::format(
            "suspect: {}: {} of {} flows through it slow, at {:.2f} of the median on average",
            describe(d, s), s.slow_flows, s.total_flows,
            s.evidence.empty() ? 0.0 : sum / static_cast<double>(s.evidence.size())));
    }
    for (const MeshFinding& f : d.findings) lines.push_back("finding: " + f.message);
    size_t measured = 0;
    size_t slow = 0;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        measured += d.flows[i].measured;
        slow += a.slow[i];
    }
    std::string medians;
    for (const auto& [plane, m] : a.plane_median_gbps)
        medians +=
            fmt::format("{}plane {} median {:.3f} Gb/s", medians.empty() ? "" : ", ", plane, m);
    lines.push_back(
        fmt::format("mesh run {}: {} ranks, {} of {} rounds, {} of {} flows measured, "
                    "{} slow (below {:.2f} of the median){}{}",
                    d.status, d.ranks.size(), d.rounds_done, d.rounds.size(), measured,
                    d.flows.size(), slow, a.slow_ratio, medians.empty() ? "" : "; ", medians));
    return lines;
}

}  // namespace fabscope::perf
