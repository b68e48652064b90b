#include "mesh/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string_view>

#include "congestion/flow_congestion.h"
#include "mesh/ring_report.h"
#include "schedule/localize.h"

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

json nullable_round(int r) {
    return r < 0 ? json(nullptr) : json(r + 1);
}

/// The switch-level fabric the traces showed, and how much of it was tested.
json links_json(const MeshLinks& m, const std::vector<char>& slow) {
    const Fabric& f = m.fabric.fabric();
    json switches = json::array();
    for (const Node& n : f.nodes()) {
        if (n.type == NodeType::Switch) switches.push_back(n.description);
    }
    // Per lane: measured flows through it, and the slow ones.
    std::map<Lane, std::pair<size_t, size_t>> use;
    for (size_t flow : m.measured) {
        for (Lane l : m.flow_lanes[flow]) {
            ++use[l].first;
            use[l].second += slow[flow] ? 1 : 0;
        }
    }
    json lanes = json::array();
    for (Lane l : m.fabric.lanes()) {
        lanes.push_back({{"lane", l},
                         {"name", m.fabric.lane_name(l)},
                         {"cable", m.fabric.cable_name(link_of_lane(l))},
                         {"flows", use[l].first},
                         {"slow", use[l].second}});
    }
    return {{"switches", switches},
            {"lanes", lanes},
            {"coverage",
             {{"lanes", m.coverage.lanes},
              {"crossed", m.coverage.crossed},
              {"fraction", m.coverage.fraction()},
              {"endpoints", m.coverage.endpoints},
              {"senders", m.coverage.senders},
              {"receivers", m.coverage.receivers}}}};
}

/// InfiniBand: where the paths came from and whether the switch ports'
/// counters were read (null on RoCE).
json routes_json(const MeshRunData& d) {
    if (!d.routes) return nullptr;
    const SwitchCounters& c = d.switch_counters;
    std::set<PortRef> failed_ports;  // a port that failed both readings is named once
    for (const auto* r : {&c.before, &c.after}) {
        if (*r) failed_ports.insert((*r)->failed.begin(), (*r)->failed.end());
    }
    json failed = json::array();
    for (const PortRef& p : failed_ports) failed.push_back(describe(*d.routes, p));
    const std::string why = c.why_not();
    return {{"from", d.routes_from},
            {"switch_counters",
             {{"read", why.empty()},
              {"why_not", why.empty() ? json(nullptr) : json(why)},
              {"ports", c.before ? c.before->ports.size() : 0},
              {"failed", failed}}}};
}

/// One rank: what rank_report_json says, its plane, whether it took part to the
/// end, and its coordinator role and InfiniBand address when it has them.
json reported_rank_json(const MeshRank& r) {
    json k = rank_report_json(r);
    k["plane"] = r.plane;
    k["ok"] = r.error.empty() && !r.gone;
    k["gone_round"] = r.gone ? nullable_round(r.gone_round) : json(nullptr);
    if (r.coordinator) k["coordinator"] = true;
    if (r.lid != 0) k["lid"] = r.lid;
    if (r.port_guid != 0) k["port_guid"] = format_guid(r.port_guid);
    return k;
}

/// Every rank of the run.
json reported_ranks_json(const MeshRunData& d) {
    json ranks = json::array();
    for (const MeshRank& r : d.ranks) ranks.push_back(reported_rank_json(r));
    return ranks;
}

/// One pair of a round, with the flow labels (RoCE) or path bits (InfiniBand)
/// that steered it when any did.
json pair_json(const MeshPair& p) {
    json pair = {{"a", p.a}, {"b", p.b}, {"both_ways", p.both_ways}};
    if (p.label_ab != 0 || p.label_ba != 0) {
        pair["flow_label_ab"] = p.label_ab;
        pair["flow_label_ba"] = p.label_ba;
    }
    if (p.path_bits_ab != 0 || p.path_bits_ba != 0) {
        pair["path_bits_ab"] = p.path_bits_ab;
        pair["path_bits_ba"] = p.path_bits_ba;
    }
    return pair;
}

/// Round `i`, numbered from 1, adaptive when after the planned ones.
json round_json(const MeshRunData& d, size_t i) {
    json pairs = json::array();
    for (const MeshPair& p : d.rounds[i]) pairs.push_back(pair_json(p));
    return {{"round", i + 1}, {"pairs", std::move(pairs)}, {"adaptive", i >= d.planned_rounds}};
}

json reported_rounds_json(const MeshRunData& d) {
    json rounds = json::array();
    for (size_t i = 0; i < d.rounds.size(); ++i) rounds.push_back(round_json(d, i));
    return rounds;
}

/// Flow `i`: what it measured and what the analysis made of it.
json flow_json(const MeshRunData& d, const MeshAnalysis& a, size_t i) {
    const MeshFlow& f = d.flows[i];
    const json path = f.path.unpack();
    json x = {{"round", f.round + 1},
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
              {"slow", a.slow[i] != 0},
              {"lossy", a.lossy[i] != 0},
              {"path", path.is_object() ? path : json(nullptr)},
              {"counters", f.counters.is_null() ? json::object() : f.counters.unpack()},
              {"congestion", test_congestion_to_json(f.congestion)},
              {"lanes", a.links.flow_lanes.at(i)}};
    if (f.path_bits != 0) x["path_bits"] = f.path_bits;
    return x;
}

/// Every flow of the run, measured or not.
json flows_json(const MeshRunData& d, const MeshAnalysis& a) {
    json flows = json::array();
    for (size_t i = 0; i < d.flows.size(); ++i) flows.push_back(flow_json(d, a, i));
    return flows;
}

/// Each plane's median rate, what its flows are measured against.
json planes_json(const MeshAnalysis& a) {
    json planes = json::array();
    for (const auto& [plane, m] : a.plane_median_gbps)
        planes.push_back({{"plane", plane}, {"median_gbps", m}});
    return planes;
}

/// One endpoint suspect: its sides, the flows behind it and their counters.
json endpoint_suspect_json(const MeshRunData& d, const EndpointSuspect& s) {
    json sides = json::array();
    for (const EndpointSide& side : s.sides) {
        sides.push_back({{"rank", side.rank},
                         {"host", host_of(d, side.rank)},
                         {"device", d.ranks.at(side.rank).device},
                         {"direction", side.sending ? "send" : "receive"}});
    }
    return {{"name", describe(d, s)},
            {"endpoints", sides},
            {"localized", s.sides.size() == 1},
            {"slow_flows", s.slow_flows},
            {"total_flows", s.total_flows},
            {"evidence", s.evidence},
            {"counters",
             {{"slow", flow_counters_json(s.slow_counters)},
              {"healthy", flow_counters_json(s.healthy_counters)}}}};
}

/// The endpoints the slow flows point at (analyse_mesh).
json endpoint_suspects_json(const MeshRunData& d, const MeshAnalysis& a) {
    json suspects = json::array();
    for (const EndpointSuspect& s : a.suspects) suspects.push_back(endpoint_suspect_json(d, s));
    return suspects;
}

/// The run's findings, rank and round null where they have none.
json findings_json(const MeshRunData& d) {
    json findings = json::array();
    for (const MeshFinding& f : d.findings) {
        findings.push_back({{"kind", f.kind},
                            {"rank", f.rank < 0 ? json(nullptr) : json(f.rank)},
                            {"host", f.rank < 0 ? json(nullptr) : json(host_of(d, f.rank))},
                            {"round", nullable_round(f.round)},
                            {"message", f.message}});
    }
    return findings;
}

/// One link suspect: its lanes, the flows behind it, their counters and what
/// the switch ports at its ends counted.
json link_suspect_json(const MeshLinks& links, const LinkSuspect& s) {
    json lanes = json::array();
    for (Lane l : s.lanes) {
        lanes.push_back({{"lane", l},
                         {"name", links.fabric.lane_name(l)},
                         {"cable", links.fabric.cable_name(link_of_lane(l))}});
    }
    return {{"name", s.name},
            {"lanes", lanes},
            {"localized", s.lanes.size() == 1},
            {"slow_flows", s.slow_flows},
            {"own_slow_flows", s.own_slow},
            {"total_flows", s.total_flows},
            {"mean_ratio", s.mean_ratio},
            {"evidence", s.evidence},
            {"healthy", s.healthy},
            {"counters",
             {{"slow", flow_counters_json(s.slow_counters)},
              {"healthy", flow_counters_json(s.healthy_counters)}}},
            {"switch_ports", port_evidence_json(s.switch_ports)}};
}

/// The lanes the slow flows' paths point at (analyse_links).
json link_suspects_json(const MeshLinks& links) {
    json link_suspects = json::array();
    for (const LinkSuspect& s : links.suspects)
        link_suspects.push_back(link_suspect_json(links, s));
    return link_suspects;
}

/// The cable suspects, each direction by its link suspect's name.
json cable_suspects_json(const MeshLinks& links) {
    json cables = json::array();
    for (const CableSuspect& c : links.cables) {
        json dirs = json::array();
        for (size_t i : c.directions) dirs.push_back(links.suspects[i].name);
        cables.push_back({{"name", c.name},
                          {"directions", dirs},
                          {"slow_flows", c.slow_flows},
                          {"own_slow_flows", c.own_slow},
                          {"total_flows", c.total_flows}});
        if (!c.host.empty()) cables.back()["host"] = c.host;
    }
    return cables;
}

/// The run counted: flows (measured, ok, slow), suspects, traced flows, findings.
json totals_json(const MeshRunData& d, const MeshAnalysis& a) {
    size_t measured = 0;
    size_t ok = 0;
    size_t slow = 0;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const MeshFlow& f = d.flows[i];
        measured += f.measured;
        ok += f.measured && f.ok;
        slow += a.slow[i];
    }
    return {{"flows", d.flows.size()},
            {"measured", measured},
            {"ok", ok},
            {"slow", slow},
            {"suspects", a.suspects.size()},
            {"link_suspects", a.links.suspects.size()},
            {"traced", a.links.traced},
            {"findings", d.findings.size()}};
}

/// The hosts' sides their flows point at, judged by the same slow ratio as
/// the lanes: a side whose flows run short together (a NIC at 0.7) stands
/// as a cable does. Its observations are gone when it returns (a million
/// flows cost 100 MB here).
std::vector<EndpointSuspect> endpoint_suspects(const MeshRunData& d, const MeshAnalysis& a) {
    std::vector<FlowObservation> obs;
    std::vector<size_t> obs_flow;
    obs.reserve(d.flows.size());
    obs_flow.reserve(d.flows.size());
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const MeshFlow& f = d.flows[i];
        if (!flow_is_evidence(d, f)) continue;
        obs.push_back({.test = i,
                       .src = static_cast<size_t>(f.src),
                       .dst = static_cast<size_t>(f.dst),
                       .lanes = {send_lane(f.src), receive_lane(f.dst)},
                       .slow = a.slow[i] != 0,
                       .ratio = a.ratio[i],
                       .strength = a.strength[i]});
        obs_flow.push_back(i);
    }
    std::vector<EndpointSuspect> out;
    Localization l = localize(obs, LocalizeOptions{.slow_ratio = a.slow_ratio});
    for (const Suspect& s : l.suspects) {
        EndpointSuspect e;
        for (Lane lane : s.lanes)
            e.sides.push_back({static_cast<int>(link_of_lane(lane)), (lane & 1U) == 0});
        e.slow_flows = s.slow_flows;
        e.total_flows = s.total_flows;
        for (size_t o : s.evidence) e.evidence.push_back(obs_flow[o]);
        if (e.sides.size() == 1) {
            const EndpointSide side = e.sides.front();
            const FlowEnd end = side.sending ? FlowEnd::Sender : FlowEnd::Receiver;
            std::vector<size_t> healthy;
            for (size_t k = 0; k < obs.size(); ++k) {
                const MeshFlow& f = d.flows[obs_flow[k]];
                if (!obs[k].slow && (side.sending ? f.src : f.dst) == side.rank)
                    healthy.push_back(obs_flow[k]);
            }
            e.slow_counters = sum_flow_counters(d, e.evidence, end);
            e.healthy_counters = sum_flow_counters(d, healthy, end);
        } else {
            e.slow_counters = sum_flow_counters(d, e.evidence, FlowEnd::Both);
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

MeshAnalysis analyse_mesh(const MeshRunData& d, double slow_ratio) {
    MeshAnalysis a;
    a.slow_ratio = slow_ratio;
    a.ratio.assign(d.flows.size(), -1.0);
    a.slow.assign(d.flows.size(), 0);
    a.lossy.assign(d.flows.size(), 0);
    a.strength.assign(d.flows.size(), 1.0);
    auto plane_of = [&](const MeshFlow& f) {
        return static_cast<size_t>(f.src) < d.ranks.size() ? d.ranks[f.src].plane : 0;
    };
    // The adaptive rounds send flows through the suspects on purpose: the
    // median, what a healthy flow gets, is taken over the planned rounds.
    auto baseline = [&](const MeshFlow& f) {
        return d.planned_rounds == 0 || d.planned_rounds >= d.rounds.size() ||
               f.round < d.planned_rounds;
    };
    std::map<int, std::vector<double>> by_plane;
    for (const MeshFlow& f : d.flows) {
        if (f.measured && f.ok && baseline(f)) by_plane[plane_of(f)].push_back(f.avg_gbps);
    }
    std::map<int, double> med;
    for (const auto& [plane, v] : by_plane) {
        med[plane] = median(v);
        a.plane_median_gbps.emplace_back(plane, med[plane]);
    }
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const MeshFlow& f = d.flows[i];
        if (!flow_is_evidence(d, f)) continue;
        double m = med.count(plane_of(f)) ? med[plane_of(f)] : 0;
        a.ratio[i] = f.ok && m > 0 ? f.avg_gbps / m : 0;
        a.lossy[i] = std::any_of(f.congestion.begin(), f.congestion.end(), [](const Finding& c) {
            return c.kind == "loss_on_lossless_class";
        });
        a.slow[i] = a.ratio[i] < slow_ratio || a.lossy[i];
        a.strength[i] = slow_strength(a.ratio[i], slow_ratio, a.lossy[i] != 0);
    }
    a.suspects = endpoint_suspects(d, a);
    a.links =
        analyse_links(d, a.ratio, a.slow, a.strength, LocalizeOptions{.slow_ratio = slow_ratio});
    // Where the paths are known, a host's own cable is a lane among the
    // others: a host whose slow flows a lane suspect (a cable, or the host's
    // cable itself) explains is not named again by its ends alone.
    std::set<size_t> explained;
    for (const LinkSuspect& s : a.links.suspects)
        explained.insert(s.evidence.begin(), s.evidence.end());
    std::erase_if(a.suspects, [&](const EndpointSuspect& e) {
        return !explained.empty() && std::all_of(e.evidence.begin(), e.evidence.end(),
                                                 [&](size_t i) { return explained.count(i) > 0; });
    });
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

namespace {

/// The report but its flows.
json mesh_run_head(const MeshRunData& d, const MeshAnalysis& a) {
    json head = {{"format", "fabscope-mesh-run"},
                 {"version", 1},
                 {"status", d.status},
                 {"complete", d.status == "complete"},
                 {"pattern", d.pattern},
                 {"launcher", d.launcher},
                 {"spec", spec_to_json(d.spec)},
                 {"slow_ratio", a.slow_ratio},
                 {"wall_seconds", d.wall_seconds},
                 {"ranks", reported_ranks_json(d)},
                 {"rounds_done", d.rounds_done},
                 {"planes", planes_json(a)},
                 {"suspects", endpoint_suspects_json(d, a)},
                 {"fabric", links_json(a.links, a.slow)},
                 {"routes", routes_json(d)},
                 {"cable_suspects", cable_suspects_json(a.links)},
                 {"link_suspects", link_suspects_json(a.links)},
                 {"findings", findings_json(d)},
                 {"totals", totals_json(d, a)}};
    if (d.pattern == "ring") {
        json rings = json::array();
        for (const RingResult& r : d.rings) rings.push_back(ring_json(d, a, r));
        head["ring"] = rings.empty() ? json(nullptr) : rings.front();
        head["rings"] = std::move(rings);
        head["ring_planes"] = ring_planes_json(d);
    }
    if (d.pattern == "cover") head["cover_passes"] = d.cover_passes;
    return head;
}

}  // namespace

std::string host_of(const MeshRunData& d, int r) {
    if (r >= 0 && static_cast<size_t>(r) < d.ranks.size() && !d.ranks[r].host.empty())
        return d.ranks[r].host;
    return fmt::format("rank {}", r);
}

json mesh_run_json(const MeshRunData& d, const MeshAnalysis& a) {
    json doc = mesh_run_head(d, a);
    doc["rounds"] = reported_rounds_json(d);
    doc["flows"] = flows_json(d, a);
    return doc;
}

void write_mesh_run_json(std::ostream& out, const MeshRunData& d, const MeshAnalysis& a) {
    // The rounds and the flows grow with the square of the ranks (16.8
    // million flows at 4,096 ranks): each is written an element at a time
    // into its slot in the rest of the document, never held whole.
    json head = mesh_run_head(d, a);
    head["rounds"] = json::array();
    head["flows"] = json::array();
    const std::string text = head.dump(1, ' ', false, json::error_handler_t::replace);
    struct Slot {
        std::string empty;  ///< `\n "key": []`: the only top-level key of that name at
                            ///< the top level's indent (a newline in a string is escaped)
        size_t count;
        std::function<json(size_t)> element;
        size_t at = 0;
    };
    std::vector<Slot> slots = {
        {"\n \"rounds\": []", d.rounds.size(), [&](size_t i) { return round_json(d, i); }},
        {"\n \"flows\": []", d.flows.size(), [&](size_t i) { return flow_json(d, a, i); }}};
    for (Slot& x : slots) x.at = text.find(x.empty);
    std::sort(slots.begin(), slots.end(), [](const Slot& l, const Slot& r) { return l.at < r.at; });
    size_t from = 0;
    for (const Slot& x : slots) {
        // Up to the slot's "[", its elements, then on after its "]".
        out << std::string_view(text).substr(from, x.at + x.empty.size() - 1 - from);
        for (size_t i = 0; i < x.count; ++i) {
            out << (i == 0 ? "\n  " : ",\n  ")
                << x.element(i).dump(-1, ' ', false, json::error_handler_t::replace);
        }
        out << (x.count == 0 ? "]" : "\n ]");
        from = x.at + x.empty.size();
    }
    out << std::string_view(text).substr(from) << '\n';
}

namespace {

/// "; its switch ports counted leaf01[7] (sending) PortXmitDiscards +5, ...":
/// what the IB switch ports at a lane's ends counted over the run.
std::string switch_note(const std::vector<PortEvidence>& ports) {
    const std::string phrase = switch_ports_phrase(ports);
    return phrase.empty() ? "" : "; " + phrase;
}

/// "; on its slow flows the ends counted X (on its healthy flows, Y)": the
/// event counters behind a suspect, or that there were none.
std::string counted_note(const FlowCounters& slow, const FlowCounters& healthy) {
    if (slow.counted == 0) return "";
    std::string bad = event_counters_line(slow.sum);
    std::string out = fmt::format("; on its slow flows the ends counted {}",
                                  bad.empty() ? "no errors or congestion" : bad);
    if (healthy.counted > 0) {
        std::string good = event_counters_line(healthy.sum);
        out += fmt::format(" (on its healthy flows, {})", good.empty() ? "none" : good);
    }
    return out;
}

}  // namespace

std::vector<std::string> mesh_run_summary(const MeshRunData& d, const MeshAnalysis& a) {
    std::vector<std::string> lines;
    if (d.pattern == "ring") lines = ring_summary(d, a);
    const MeshLinks& links = a.links;
    auto lane_line = [&](const LinkSuspect& s) {
        std::string shared =
            s.own_slow < s.slow_flows
                ? fmt::format(", {} of them explained by a suspect chosen before it",
                              s.slow_flows - s.own_slow)
                : "";
        return fmt::format(
            "{}: {} of {} flows through it slow (at {:.2f} of the median{}), {} healthy{}", s.name,
            s.slow_flows, s.total_flows, s.mean_ratio, shared, s.healthy.size(),
            counted_note(s.slow_counters, s.healthy_counters) + switch_note(s.switch_ports));
    };
    for (const CableSuspect& c : links.cables) {
        std::string dirs;
        for (size_t i : c.directions) dirs.append("; ").append(lane_line(links.suspects[i]));
        if (!c.host.empty()) {
            // A host's own cable: each direction is a side of the host.
            std::string sides;
            for (size_t i : c.directions)
                sides.append(sides.empty() ? "" : "; ").append(lane_line(links.suspects[i]));
            lines.push_back("suspect: host " + sides);
        } else {
            lines.push_back(fmt::format("suspect: cable {} ({}){}", c.name,
                                        c.directions.size() == 2 ? "both ways" : "one way", dirs));
        }
    }
    for (const LinkSuspect& s : links.suspects) {
        if (s.lanes.size() > 1)
            lines.push_back(fmt::format("suspect: one of {} lanes the flows cannot tell apart: {}",
                                        s.lanes.size(), lane_line(s)));
    }
    for (const EndpointSuspect& s : a.suspects) {
        double sum = 0;
        for (size_t i : s.evidence) sum += a.ratio[i];
        lines.push_back(fmt::format(
            "suspect: {}: {} of {} flows through it slow, at {:.2f} of the median on average{}",
            describe(d, s), s.slow_flows, s.total_flows,
            s.evidence.empty() ? 0.0 : sum / static_cast<double>(s.evidence.size()),
            counted_note(s.slow_counters, s.healthy_counters)));
    }
    // A few of each kind: a bad cable under a 4,096-rank all-pairs run is
    // thousands of flows whose ends counted retransmissions, each a finding
    // in the report, which the suspects above already sum up.
    std::map<std::string, size_t> of_kind;
    for (const MeshFinding& f : d.findings) {
        if (++of_kind[f.kind] <= kSummaryFindingsPerKind) lines.push_back("finding: " + f.message);
    }
    for (const auto& [kind, n] : of_kind) {
        if (n > kSummaryFindingsPerKind)
            lines.push_back(fmt::format("finding: and {} more {} findings (in the report)",
                                        n - kSummaryFindingsPerKind, kind));
    }
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
    const auto coordinators = static_cast<size_t>(std::count_if(
        d.ranks.begin(), d.ranks.end(), [](const MeshRank& r) { return r.coordinator; }));
    lines.push_back(fmt::format(
        "mesh run {}: {} ranks{}, {} of {} rounds, {} of {} flows measured, "
        "{} slow (below {:.2f} of the median){}{}",
        d.status, d.ranks.size() - coordinators, coordinators > 0 ? " and a coordinator" : "",
        d.rounds_done, d.rounds.size(), measured, d.flows.size(), slow, a.slow_ratio,
        medians.empty() ? "" : "; ", medians));
    const std::string passes =
        d.cover_passes > 1 ? fmt::format(" in {} passes", d.cover_passes) : "";
    if (d.pattern == "cover" && d.routes) {
        lines.push_back(fmt::format(
            "cover: {} rounds planned{} from the forwarding tables of {}, "
            "then {} adaptive",
            d.planned_rounds, passes, d.routes_from, d.rounds.size() - d.planned_rounds));
    } else if (d.pattern == "cover") {
        lines.push_back(
            fmt::format("cover: {} rounds planned{} from {} traced paths ({} source ports "
                        "per pair), then {} adaptive",
                        d.planned_rounds, passes, d.traces.size(), d.sports.size(),
                        d.rounds.size() - d.planned_rounds));
        if (d.traces_left_out > 0) {
            lines.push_back(fmt::format(
                "cover: {} traces asked were left out: a rank's traces reached the size of one "
                "message (fewer --trace-targets or --trace-ports)",
                d.traces_left_out));
        }
    }
    if (links.traced > 0 || links.coverage.lanes > 0) {
        const auto& nodes = links.fabric.fabric().nodes();
        const auto switches = std::count_if(
            nodes.begin(), nodes.end(), [](const Node& n) { return n.type == NodeType::Switch; });
        lines.push_back(fmt::format(
            "paths: {} flows {}; {} switches; {} of {} switch-to-switch lanes crossed ({:.0f} %); "
            "host links: {} of {} hosts sent, {} received",
            links.traced, links.routed ? "routed by the forwarding tables" : "traced", switches,
            links.coverage.crossed, links.coverage.lanes, 100 * links.coverage.fraction(),
            links.coverage.senders, links.coverage.endpoints, links.coverage.receivers));
    }
    if (d.routes) {
        std::string why = d.switch_counters.why_not();
        lines.push_back(why.empty() ? fmt::format("switch counters: {} ports read before and after "
                                                  "the rounds",
                                                  d.switch_counters.before->ports.size())
                                    : "switch counters: none (" + why + ")");
    }
    return lines;
}

}  // namespace fabscope::perf
