#include "mesh/ring_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "mesh/links.h"
#include "mesh/report.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

/// The lanes edge `e` of `r` crosses (its flow's), by their ports (empty:
/// not known).
std::vector<std::string> edge_path(const MeshAnalysis& a, const RingResult& r, size_t e) {
    std::vector<std::string> lanes;
    const size_t f = r.first_flow + e;
    if (f >= a.links.flow_lanes.size()) return lanes;
    for (Lane l : a.links.flow_lanes[f]) lanes.push_back(a.links.fabric.lane_name(l));
    return lanes;
}

/// The cables (either way) every one of `edges` of `r` crosses, when there
/// are two or more of them: a cable shaped both ways slows each edge
/// through it.
std::vector<std::string> shared_cables(const MeshAnalysis& a, const RingResult& r,
                                       const std::vector<size_t>& edges) {
    std::vector<std::string> names;
    if (edges.size() < 2) return names;
    std::set<size_t> common;
    for (size_t k = 0; k < edges.size(); ++k) {
        const size_t f = r.first_flow + edges[k];
        if (f >= a.links.flow_lanes.size()) return names;
        std::set<size_t> mine;
        for (Lane l : a.links.flow_lanes[f]) mine.insert(link_of_lane(l));
        if (k == 0) {
            common = mine;
            continue;
        }
        std::set<size_t> both;
        std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(),
                              std::inserter(both, both.end()));
        common = std::move(both);
    }
    for (size_t link : common) names.push_back(a.links.fabric.cable_name(link));
    return names;
}

json edge_json(const RingEdge& e) {
    json j = {{"src", e.src},
              {"dst", e.dst},
              {"steps", e.steps},
              {"mean_us", e.mean_us},
              {"median_us", e.median_us},
              {"max_us", e.max_us},
              {"gbps", e.gbps}};
    if (!e.error.empty()) j["error"] = e.error;
    return j;
}

json size_json(const RingSize& s) {
    json edges = json::array();
    for (const RingEdge& e : s.edges) edges.push_back(edge_json(e));
    return {{"bytes", s.bytes},          {"chunk", s.chunk},     {"iterations", s.iterations},
            {"measured", s.measured},    {"time_us", s.time_us}, {"algbw_GBps", s.algbw_gbs},
            {"busbw_GBps", s.busbw_gbs}, {"edges", edges}};
}

}  // namespace

json ring_json(const MeshRunData& d, const MeshAnalysis& a, const RingResult& r) {
    const size_t n = r.order.size();
    json sizes = json::array();
    for (const RingSize& s : r.sizes) sizes.push_back(size_json(s));
    json j = {{"plane", r.plane},
              {"order", r.order},
              {"ordered_by", r.ordered_by},
              {"bus_factor", bus_factor(n)},
              {"sizes", sizes},
              {"slowest_edge", nullptr}};
    const RingSize* at = ring_verdict_size(r);
    if (!at) return j;
    const RingCost c = ring_cost(*at, n, a.slow_ratio);
    if (!c.found) return j;
    const RingEdge& e = at->edges[c.edge];
    json slow = json::array();
    for (size_t i : c.slow) {
        const RingEdge& s = at->edges[i];
        slow.push_back({{"src", s.src},
                        {"dst", s.dst},
                        {"src_host", host_of(d, s.src)},
                        {"dst_host", host_of(d, s.dst)},
                        {"gbps", s.gbps}});
    }
    j["slowest_edge"] = {{"src", e.src},
                         {"dst", e.dst},
                         {"src_host", host_of(d, e.src)},
                         {"dst_host", host_of(d, e.dst)},
                         {"bytes", at->bytes},
                         {"gbps", c.gbps},
                         {"median_gbps", c.median_gbps},
                         {"slow_edges", slow},
                         {"cables", shared_cables(a, r, c.slow)},
                         {"busbw_GBps", c.busbw_gbs},
                         {"busbw_if_median_GBps", c.busbw_if_median_gbs},
                         {"cost", c.share},
                         {"path", edge_path(a, r, c.edge)}};
    return j;
}

json ring_planes_json(const MeshRunData& d) {
    const RingPlanesCost c = ring_planes_cost(d.rings);
    if (!c.found) return nullptr;
    return {{"planes", d.rings.size()},
            {"bytes", c.bytes},
            {"slowest_plane", d.rings[c.slowest].plane},
            {"fastest_plane", d.rings[c.fastest].plane},
            {"busbw_GBps", c.busbw_gbs},
            {"busbw_if_fastest_GBps", c.busbw_if_fastest_gbs},
            {"cost", c.share}};
}

namespace {

/// One ring's "ring: ..." lines ("ring (plane 1): ..." with several).
void one_ring_summary(const MeshRunData& d, const MeshAnalysis& a, const RingResult& r,
                      std::vector<std::string>& lines) {
    const size_t n = r.order.size();
    const std::string head =
        d.rings.size() > 1 ? fmt::format("ring (plane {}): ", r.plane) : std::string("ring: ");
    for (const RingSize& s : r.sizes) {
        if (!s.measured) continue;
        lines.push_back(fmt::format(
            "{}all-reduce of {} over {} ranks ({} order): {:.1f} us, algbw {:.3g} GB/s, "
            "busbw {:.3g} GB/s",
            head, format_size(s.bytes), n, r.ordered_by, s.time_us, s.algbw_gbs, s.busbw_gbs));
    }
    const RingSize* at = ring_verdict_size(r);
    const RingCost c = at ? ring_cost(*at, n, a.slow_ratio) : RingCost{};
    if (!c.found) return;
    const RingEdge& e = at->edges[c.edge];
    std::string through;
    for (const std::string& lane : edge_path(a, r, c.edge))
        through += (through.empty() ? "" : ", ") + lane;
    std::string others;
    if (c.slow.size() > 1)
        others = fmt::format(" and {} more edge(s) below {:.2f} of the median", c.slow.size() - 1,
                             a.slow_ratio);
    std::string cables;
    for (const std::string& cable : shared_cables(a, r, c.slow))
        cables += (cables.empty() ? "" : ", ") + cable;
    lines.push_back(fmt::format(
        "{}slowest edge {} -> {} at {:.3g} Gb/s (the median edge {:.3g} Gb/s){} cost this "
        "ring {:.0f} % of its bus bandwidth at {} (busbw {:.3g} GB/s, {:.3g} GB/s were {} as "
        "fast as the median edge){}{}",
        head, host_of(d, e.src), host_of(d, e.dst), c.gbps, c.median_gbps, others, c.share * 100,
        format_size(at->bytes), c.busbw_gbs, c.busbw_if_median_gbs,
        c.slow.size() > 1 ? "they" : "it", through.empty() ? "" : "; its path: " + through,
        cables.empty() ? "" : "; the slow edges all cross " + cables));
}

}  // namespace

std::vector<std::string> ring_summary(const MeshRunData& d, const MeshAnalysis& a) {
    std::vector<std::string> lines;
    for (const RingResult& r : d.rings) one_ring_summary(d, a, r, lines);
    const RingPlanesCost c = ring_planes_cost(d.rings);
    if (!c.found) return lines;
    const double slowest = c.busbw_gbs / static_cast<double>(d.rings.size());
    const double fastest = c.busbw_if_fastest_gbs / static_cast<double>(d.rings.size());
    lines.push_back(fmt::format(
        "rings: plane {}'s ring is the slowest of {} at {} (busbw {:.3g} GB/s against plane "
        "{}'s {:.3g}): a job splitting each all-reduce over the planes ends with it, busbw "
        "{:.3g} GB/s, {:.0f} % below the {:.3g} GB/s it would reach were it as fast",
        d.rings[c.slowest].plane, d.rings.size(), format_size(c.bytes), slowest,
        d.rings[c.fastest].plane, fastest, c.busbw_gbs, c.share * 100, c.busbw_if_fastest_gbs));
    return lines;
}

}  // namespace fabscope::perf
