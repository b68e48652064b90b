// Reading a mesh run's report back: what `fabscope mesh run -o` wrote,
// checked value by value (the json_io getters name the path of a bad one),
// every rank and flow index in range, so the views can index without checks.

#include "reports/mesh_doc.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "mesh/results/counter_evidence.h"
#include "mesh/results/switch_evidence.h"
#include "model/counters.h"
#include "model/json_io.h"
#include "rdma/test_spec.h"
#include "reports/run_json.h"

namespace fabscope {
namespace {

using json = nlohmann::json;

/// A switch port's name in a suspect's evidence ("leaf03[17]"), at most.
constexpr size_t kMaxPortName = 256;

/// An array of flow indices, each below `flows`.
std::vector<size_t> flow_indices(const json& j, const char* key, size_t flows) {
    std::vector<size_t> out;
    if (!j.contains(key)) return out;
    for (const json& x : json_io::get_array(j, key)) {
        if (!x.is_number_unsigned() || x.get<uint64_t>() >= flows)
            json_io::fail(x, fmt::format("must be a flow index below {}", flows));
        out.push_back(x.get<size_t>());
    }
    return out;
}

/// slow_flows and total_flows, slow at most total.
void counts(const json& j, MeshSuspectDoc& s) {
    s.slow_flows = json_io::get_uint<size_t>(j, "slow_flows");
    s.total_flows = json_io::get_uint<size_t>(j, "total_flows");
    if (s.slow_flows > s.total_flows)
        json_io::fail(j.at("slow_flows"), "must be at most total_flows");
}

/// The event counters of a suspect's slow flows (counters.slow.sum), when
/// the report has them (reports before them do not).
CounterMap counted_of(const json& s) {
    CounterMap out;
    if (!s.contains("counters")) return out;
    const json& slow = json_io::get_object(json_io::get_object(s, "counters"), "slow");
    const json& sum = json_io::get_object(slow, "sum");
    if (sum.size() > perf::kMaxCounterNames)
        json_io::fail(sum, fmt::format("must name at most {} counters", perf::kMaxCounterNames));
    for (const auto& [name, v] : sum.items()) {
        if (name.empty() || name.size() > perf::kMaxCounterName)
            json_io::fail(sum, fmt::format("counter names must be 1 to {} characters",
                                           perf::kMaxCounterName));
        if (!perf::is_counter_value(v)) json_io::fail(v, "must be a counter (an unsigned integer)");
        if (perf::is_event_counter(name)) out[name] = v.get<uint64_t>();
    }
    return out;
}

/// What a lane suspect's switch ports counted (switch_ports, InfiniBand),
/// when the report has them read.
std::optional<std::string> switch_counted_of(const json& s) {
    if (!s.contains("switch_ports")) return std::nullopt;
    const json& ports = json_io::get_array(s, "switch_ports");
    if (ports.size() > 2) json_io::fail(ports, "must hold at most 2 ports (a lane's two ends)");
    if (ports.empty()) return std::nullopt;
    std::vector<perf::PortEvidence> read;
    for (const json& p : ports) {
        perf::PortEvidence e;
        e.name = json_io::get_string(p, "port");
        if (e.name.empty() || e.name.size() > kMaxPortName)
            json_io::fail(p.at("port"), fmt::format("must be 1 to {} characters", kMaxPortName));
        const std::string side = json_io::get_string(p, "side");
        if (side != "sends" && side != "receives")
            json_io::fail(p.at("side"), "must be sends or receives");
        e.sends = side == "sends";
        if (p.contains("unread")) e.unread = json_io::get_string(p, "unread");
        const json& changes = json_io::get_object(p, "changes");
        if (changes.size() > kCounterCount * 2)
            json_io::fail(changes, fmt::format("must name at most {} counters", kCounterCount * 2));
        for (const auto& [name, v] : changes.items()) {
            if (!perf::is_counter_value(v))
                json_io::fail(v, "must be a counter (an unsigned integer)");
            if (parse_counter(name)) e.changes[name] = v.get<uint64_t>();
        }
        read.push_back(std::move(e));
    }
    return perf::switch_ports_phrase(read);
}

double mean_ratio_of(const MeshRunDoc& d, const std::vector<size_t>& flows) {
    double sum = 0;
    size_t n = 0;
    for (size_t i : flows) {
        if (!d.flows[i].ratio) continue;
        sum += *d.flows[i].ratio;
        ++n;
    }
    return n ? sum / static_cast<double>(n) : 0;
}

MeshFlowDoc flow_from(const json& f, size_t ranks) {
    MeshFlowDoc x;
    x.round = json_io::get_uint<size_t>(f, "round");
    x.src = json_io::get_uint<size_t>(f, "src");
    x.dst = json_io::get_uint<size_t>(f, "dst");
    if (x.src >= ranks) json_io::fail(f.at("src"), fmt::format("must be a rank below {}", ranks));
    if (x.dst >= ranks) json_io::fail(f.at("dst"), fmt::format("must be a rank below {}", ranks));
    x.src_host = json_io::get_string(f, "src_host", "");
    x.dst_host = json_io::get_string(f, "dst_host", "");
    x.measured = json_io::get_bool(f, "measured", false);
    x.ok = json_io::get_bool(f, "ok", false);
    x.error = json_io::get_string(f, "error", "");
    x.avg_gbps = non_negative(f, "avg_gbps");
    const json& ratio = json_io::get(f, "ratio");
    if (!ratio.is_null()) x.ratio = non_negative(f, "ratio");
    x.slow = json_io::get_bool(f, "slow", false);
    return x;
}

/// The run's status, pattern, launcher, test and thresholds.
void read_header(const json& j, MeshRunDoc& d) {
    d.status = run_status(j);
    d.pattern = json_io::get_string(j, "pattern");
    d.launcher = json_io::get_string(j, "launcher", "");
    perf::TestSpec spec = perf::spec_from_json(json_io::get_object(j, "spec"));
    d.test = fmt::format("{} {}", spec.name(), format_size(spec.size));
    d.slow_ratio = json_io::get_double(j, "slow_ratio");
    if (!(d.slow_ratio > 0 && d.slow_ratio < 1))
        json_io::fail(j.at("slow_ratio"), "must be between 0 and 1");
    d.wall_seconds = non_negative(j, "wall_seconds");
}

/// Each rank's host ("rank N" when it has none), every rank once.
void read_hosts(const json& j, MeshRunDoc& d) {
    const json& ranks = json_io::get_array(j, "ranks");
    d.hosts.assign(ranks.size(), "");
    std::vector<char> seen(ranks.size(), 0);
    for (const json& r : ranks) {
        size_t rank = json_io::get_uint<size_t>(r, "rank");
        if (rank >= ranks.size() || seen[rank])
            json_io::fail(r.at("rank"),
                          fmt::format("must be a rank below {}, once each", ranks.size()));
        seen[rank] = 1;
        std::string host = json_io::get_string(r, "host", "");
        d.hosts[rank] = host.empty() ? fmt::format("rank {}", rank) : host;
    }
}

/// The rounds (planned and done) and the flows, each in a planned round; a
/// flow without host names takes its ranks'.
void read_rounds_and_flows(const json& j, MeshRunDoc& d) {
    d.rounds = json_io::get_array(j, "rounds").size();
    d.rounds_done = json_io::get_uint<size_t>(j, "rounds_done");
    if (d.rounds_done > d.rounds)
        json_io::fail(j.at("rounds_done"), fmt::format("must be at most {} rounds", d.rounds));
    for (const json& f : json_io::get_array(j, "flows")) {
        d.flows.push_back(flow_from(f, d.hosts.size()));
        MeshFlowDoc& x = d.flows.back();
        if (x.round == 0 || x.round > d.rounds)
            json_io::fail(f.at("round"), fmt::format("must be a round, 1 to {}", d.rounds));
        if (x.src_host.empty()) x.src_host = d.hosts[x.src];
        if (x.dst_host.empty()) x.dst_host = d.hosts[x.dst];
    }
}

/// Each plane's median rate.
void read_plane_medians(const json& j, MeshRunDoc& d) {
    for (const json& p : json_io::get_array(j, "planes")) {
        const auto plane = static_cast<int>(json_io::get_uint<uint16_t>(p, "plane"));
        d.plane_medians.emplace_back(plane, non_negative(p, "median_gbps"));
    }
}

/// One of link_suspects, its kind ("lanes") and detail still to be settled.
MeshSuspectDoc link_suspect_of(const json& s, size_t flows) {
    MeshSuspectDoc x;
    x.kind = "lanes";
    x.name = json_io::get_string(s, "name");
    counts(s, x);
    x.mean_ratio = non_negative(s, "mean_ratio");
    x.evidence = flow_indices(s, "evidence", flows);
    x.healthy = flow_indices(s, "healthy", flows);
    x.counted = counted_of(s);
    x.switch_counted = switch_counted_of(s);
    return x;
}

/// link_suspects split into the localized (one lane) and the rest.
struct LinkSuspects {
    // Lanes by name: a cable's directions name them.
    std::map<std::string, MeshSuspectDoc> lanes;
    std::vector<MeshSuspectDoc> unlocalized;
};

/// link_suspects, each localized to one lane or "one of N lanes".
LinkSuspects link_suspects_of(const json& j, size_t flows) {
    LinkSuspects out;
    for (const json& s : json_io::get_array(j, "link_suspects")) {
        MeshSuspectDoc x = link_suspect_of(s, flows);
        size_t n = json_io::get_array(s, "lanes").size();
        if (n <= 1) {
            const std::string key = x.name;
            out.lanes[key] = std::move(x);
        } else {
            x.detail = fmt::format("one of {} lanes", n);
            out.unlocalized.push_back(std::move(x));
        }
    }
    return out;
}

/// One of cable_suspects, its evidence and counters those of the lanes its
/// directions name (each added to `in_cable`).
MeshSuspectDoc cable_suspect_of(const json& c, const std::map<std::string, MeshSuspectDoc>& lanes,
                                std::set<std::string>& in_cable) {
    MeshSuspectDoc x;
    x.kind = "cable";
    x.name = json_io::get_string(c, "name");
    counts(c, x);
    const json& dirs = json_io::get_array(c, "directions");
    x.detail = dirs.size() == 2 ? "both ways" : "one way";
    double weighted = 0;
    size_t slow = 0;
    for (const json& dir : dirs) {
        if (!dir.is_string()) json_io::fail(dir, "must be a string");
        auto it = lanes.find(dir.get<std::string>());
        if (it == lanes.end()) json_io::fail(dir, "must name one of link_suspects");
        in_cable.insert(it->first);
        const MeshSuspectDoc& l = it->second;
        x.evidence.insert(x.evidence.end(), l.evidence.begin(), l.evidence.end());
        x.healthy.insert(x.healthy.end(), l.healthy.begin(), l.healthy.end());
        weighted += l.mean_ratio * static_cast<double>(l.slow_flows);
        slow += l.slow_flows;
        for (const auto& [name, v] : l.counted)
            x.counted[name] = perf::saturating_add(x.counted[name], v);
        if (l.switch_counted) {
            // One phrase per direction: "its switch ports counted ...".
            x.switch_counted =
                x.switch_counted ? *x.switch_counted + "; " + *l.switch_counted : *l.switch_counted;
        }
    }
    x.mean_ratio = slow ? weighted / static_cast<double>(slow) : 0;
    return x;
}

/// The cable suspects, then the lanes no cable took, then the unlocalized.
void read_link_suspects(const json& j, MeshRunDoc& d) {
    LinkSuspects link = link_suspects_of(j, d.flows.size());
    std::set<std::string> in_cable;
    for (const json& c : json_io::get_array(j, "cable_suspects")) {
        d.suspects.push_back(cable_suspect_of(c, link.lanes, in_cable));
    }
    for (auto& [name, l] : link.lanes) {
        if (in_cable.count(name)) continue;
        l.kind = "lane";
        l.detail = "one way";
        d.suspects.push_back(std::move(l));
    }
    for (MeshSuspectDoc& x : link.unlocalized) d.suspects.push_back(std::move(x));
}

/// The endpoint suspects, their mean ratio that of their evidence.
void read_endpoint_suspects(const json& j, MeshRunDoc& d) {
    const size_t flows = d.flows.size();
    for (const json& s : json_io::get_array(j, "suspects")) {
        MeshSuspectDoc x;
        x.kind = "endpoint";
        x.name = json_io::get_string(s, "name");
        counts(s, x);
        x.evidence = flow_indices(s, "evidence", flows);
        x.mean_ratio = mean_ratio_of(d, x.evidence);
        x.counted = counted_of(s);
        size_t n = json_io::get_array(s, "endpoints").size();
        x.detail = n == 1 ? "the NIC or its cable" : fmt::format("one of {} endpoints", n);
        d.suspects.push_back(std::move(x));
    }
}

/// The findings, host and round when they have them.
void read_findings(const json& j, MeshRunDoc& d) {
    for (const json& f : json_io::get_array(j, "findings")) {
        MeshFindingDoc x;
        x.kind = json_io::get_string(f, "kind");
        const json& host = json_io::get(f, "host");
        if (!host.is_null()) x.host = json_io::get_string(f, "host");
        const json& round = json_io::get(f, "round");
        if (!round.is_null()) x.round = json_io::get_uint<size_t>(f, "round");
        x.message = json_io::get_string(f, "message");
        d.findings.push_back(std::move(x));
    }
}

/// The fabric's lanes, how many the run crossed, and how many flows it traced.
void read_coverage(const json& j, MeshRunDoc& d) {
    const json& coverage = json_io::get_object(json_io::get_object(j, "fabric"), "coverage");
    d.lanes = json_io::get_uint<size_t>(coverage, "lanes");
    d.lanes_crossed = json_io::get_uint<size_t>(coverage, "crossed");
    if (d.lanes_crossed > d.lanes) json_io::fail(coverage.at("crossed"), "must be at most lanes");
    d.traced = json_io::get_uint<size_t>(json_io::get_object(j, "totals"), "traced");
}

MeshRingEdgeDoc ring_edge_of(const json& e) {
    return {json_io::get_string(e, "src_host"), json_io::get_string(e, "dst_host"),
            json_io::get_double(e, "gbps")};
}

/// The rings a report may hold: one a plane.
constexpr size_t kMaxRings = 64;

/// A plane's number (0 in a report from before planes).
int plane_of(const json& j, const char* key) {
    return j.contains(key) ? static_cast<int>(json_io::get_uint_between(j, key, 0, 1023)) : 0;
}

/// One ring's figures.
MeshRingDoc ring_of(const json& r) {
    MeshRingDoc ring;
    ring.plane = plane_of(r, "plane");
    ring.ranks = json_io::get_array(r, "order").size();
    ring.ordered_by = json_io::get_string(r, "ordered_by");
    for (const json& s : json_io::get_array(r, "sizes")) {
        ring.sizes.push_back(
            {json_io::get_uint<uint64_t>(s, "bytes"), json_io::get_bool(s, "measured", false),
             json_io::get_double(s, "time_us"), json_io::get_double(s, "algbw_GBps"),
             json_io::get_double(s, "busbw_GBps")});
    }
    const json& e = json_io::get(r, "slowest_edge");
    if (!e.is_null()) {
        MeshRingCostDoc c;
        c.edge = ring_edge_of(e);
        c.bytes = json_io::get_uint<uint64_t>(e, "bytes");
        c.median_gbps = json_io::get_double(e, "median_gbps");
        for (const json& s : json_io::get_array(e, "slow_edges")) c.slow.push_back(ring_edge_of(s));
        for (const json& x : json_io::get_array(e, "cables"))
            c.cables.push_back(x.get<std::string>());
        for (const json& x : json_io::get_array(e, "path")) c.path.push_back(x.get<std::string>());
        c.busbw_gbs = json_io::get_double(e, "busbw_GBps");
        c.busbw_if_median_gbs = json_io::get_double(e, "busbw_if_median_GBps");
        c.cost = json_io::get_double(e, "cost");
        if (c.cost < 0 || c.cost > 1) json_io::fail(e.at("cost"), "must be 0 .. 1");
        ring.slowest = std::move(c);
    }
    return ring;
}

/// The rings' figures, when the report has them ("rings"; a report from
/// before planes has one "ring").
void read_rings(const json& j, MeshRunDoc& d) {
    if (const auto rs = j.find("rings"); rs != j.end()) {
        const json& rings = json_io::get_array(j, "rings");
        if (rings.size() > kMaxRings)
            json_io::fail(*rs, fmt::format("more than {} rings", kMaxRings));
        for (const json& r : rings) d.rings.push_back(ring_of(r));
    } else if (const auto r = j.find("ring"); r != j.end() && !r->is_null()) {
        d.rings.push_back(ring_of(*r));
    }
    const auto p = j.find("ring_planes");
    if (p == j.end() || p->is_null()) return;
    MeshRingPlanesDoc c;
    c.planes = json_io::get_uint<size_t>(*p, "planes");
    c.bytes = json_io::get_uint<uint64_t>(*p, "bytes");
    c.slowest_plane = plane_of(*p, "slowest_plane");
    c.fastest_plane = plane_of(*p, "fastest_plane");
    c.busbw_gbs = json_io::get_double(*p, "busbw_GBps");
    c.busbw_if_fastest_gbs = json_io::get_double(*p, "busbw_if_fastest_GBps");
    c.cost = json_io::get_double(*p, "cost");
    if (c.cost < 0 || c.cost > 1) json_io::fail(p->at("cost"), "must be 0 .. 1");
    d.ring_planes = c;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

}  // namespace

const MeshRingSizeDoc* MeshRingDoc::verdict() const {
    const MeshRingSizeDoc* best = nullptr;
    for (const MeshRingSizeDoc& s : sizes) {
        if (s.measured && (!best || s.bytes > best->bytes)) best = &s;
    }
    return best;
}

std::vector<std::string> ring_lines(const MeshRingDoc& r, bool name_plane) {
    std::vector<std::string> out;
    const std::string plane = name_plane ? fmt::format("plane {}: ", r.plane) : std::string();
    const MeshRingSizeDoc* at = r.verdict();
    if (!at) {
        out.push_back(
            fmt::format("{}ring all-reduce over {} ranks: no size measured", plane, r.ranks));
        return out;
    }
    out.push_back(fmt::format(
        "{}ring all-reduce of {} over {} ranks ({} order): busbw {:.3g} GB/s (algbw {:.3g} "
        "GB/s, {:.3g} ms)",
        plane, format_size(at->bytes), r.ranks, r.ordered_by, at->busbw_gbs, at->algbw_gbs,
        at->time_us / 1e3));
    if (!r.slowest) return out;
    const MeshRingCostDoc& c = *r.slowest;
    std::string line = fmt::format(
        "slowest edge {} → {} at {:.3g} Gb/s (median {:.3g}){}: {:.0f} % of the ring's bus "
        "bandwidth ({:.3g} GB/s were {} at the median)",
        c.edge.src_host, c.edge.dst_host, c.edge.gbps, c.median_gbps,
        c.slow.size() > 1 ? fmt::format(" and {} more slow edge(s)", c.slow.size() - 1) : "",
        c.cost * 100, c.busbw_if_median_gbs, c.slow.size() > 1 ? "they" : "it");
    if (!c.cables.empty()) line += "; all cross " + joined(c.cables);
    out.push_back(line);
    if (!c.path.empty()) out.push_back("its path: " + joined(c.path));
    return out;
}

std::string ring_planes_line(const MeshRingPlanesDoc& p) {
    return fmt::format(
        "plane {}'s ring is the slowest of {} at {}: a job splitting each all-reduce over the "
        "planes runs at busbw {:.3g} GB/s, {:.0f} % below the {:.3g} GB/s were it as fast as "
        "plane {}'s",
        p.slowest_plane, p.planes, format_size(p.bytes), p.busbw_gbs, p.cost * 100,
        p.busbw_if_fastest_gbs, p.fastest_plane);
}

size_t MeshRunDoc::measured() const {
    return static_cast<size_t>(
        std::count_if(flows.begin(), flows.end(), [](const MeshFlowDoc& f) { return f.measured; }));
}

size_t MeshRunDoc::slow() const {
    return static_cast<size_t>(
        std::count_if(flows.begin(), flows.end(), [](const MeshFlowDoc& f) { return f.slow; }));
}

std::string MeshRunDoc::flow_text(size_t i) const {
    const MeshFlowDoc& f = flows.at(i);
    std::string pair = fmt::format("{} → {}", f.src_host, f.dst_host);
    if (!f.measured) return pair + ": not measured";
    if (!f.ok)
        return fmt::format("{}: failed{}", pair,
                           f.error.empty() ? "" : fmt::format(" ({})", f.error));
    return fmt::format("{}: {:.3g} Gb/s, {:.2f} of the median", pair, f.avg_gbps,
                       f.ratio.value_or(0));
}

bool looks_like_mesh_run(const json& j) {
    if (!j.is_object()) return false;
    auto format = j.find("format");
    if (format != j.end()) return *format == "fabscope-mesh-run";
    return j.contains("flows") && j.contains("ranks") && j.contains("cable_suspects") &&
           j.contains("suspects");
}

Result<MeshRunDoc> mesh_run_doc_from_json(const json& j) {
    if (!looks_like_mesh_run(j)) return make_error("not a fabscope mesh run report");
    if (auto v = check_version_1(j, "mesh run report"); !v) return v.error();
    return json_io::guarded([&]() -> Result<MeshRunDoc> {
        MeshRunDoc d;
        read_header(j, d);
        read_hosts(j, d);
        read_rounds_and_flows(j, d);
        read_plane_medians(j, d);
        read_link_suspects(j, d);
        read_endpoint_suspects(j, d);
        read_findings(j, d);
        read_coverage(j, d);
        read_rings(j, d);
        return d;
    });
}

std::vector<size_t> mesh_matrix_flows(const MeshRunDoc& d, size_t max_hosts) {
    std::set<size_t> hosts;
    for (const MeshFlowDoc& f : d.flows) {
        if (f.measured) hosts.insert({f.src, f.dst});
    }
    if (hosts.size() > max_hosts) {
        // The hosts of the slow and failed flows, most such flows first.
        std::map<size_t, size_t> bad;
        for (const MeshFlowDoc& f : d.flows) {
            if (!f.measured || (f.ok && !f.slow)) continue;
            ++bad[f.src];
            ++bad[f.dst];
        }
        std::vector<std::pair<size_t, size_t>> by_count(bad.begin(), bad.end());
        std::stable_sort(by_count.begin(), by_count.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        hosts.clear();
        for (const auto& [rank, n] : by_count) {
            if (hosts.size() >= max_hosts) break;
            hosts.insert(rank);
        }
    }
    std::vector<size_t> out;
    std::set<std::pair<size_t, size_t>> done;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const MeshFlowDoc& f = d.flows[i];
        if (!f.measured || !hosts.count(f.src) || !hosts.count(f.dst)) continue;
        if (done.insert({f.src, f.dst}).second) out.push_back(i);
    }
    return out;
}

std::vector<std::string> suspect_counted_phrases(const MeshSuspectDoc& s) {
    std::vector<std::string> out;
    if (!s.counted.empty())
        out.push_back("its slow flows' ends counted " + perf::event_counters_line(s.counted));
    if (s.switch_counted) out.push_back(*s.switch_counted);
    return out;
}

}  // namespace fabscope
