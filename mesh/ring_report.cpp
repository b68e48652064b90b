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

/// The lanes edge `e`'s flow crosses, by their ports (empty: not known).
std::vector<std::string> edge_path(const MeshAnalysis& a, size_t e) {
    std::vector<std::string> lanes;
    if (e >= a.links.flow_lanes.size()) return lanes;
    for (Lane l : a.links.flow_lanes[e]) lanes.push_back(a.links.fabric.lane_name(l));
    return lanes;
}

/// The cables (either way) every one of `edges` crosses, when there are two
/// or more of them: a cable shaped both ways slows each edge through it.
std::vector<std::string> shared_cables(const MeshAnalysis& a, const std::vector<size_t>& edges) {
    std::vector<std::string> names;
    if (edges.size() < 2) return names;
    std::set<size_t> common;
    for (size_t k = 0; k < edges.size(); ++k) {
        if (edges[k] >= a.links.flow_lanes.size()) return names;
        std::set<size_t> mine;
        for (Lane l : a.links.flow_lanes[edges[k]]) mine.insert(link_of_lane(l));
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

json ring_json(const MeshRunData& d, const MeshAnalysis& a) {
    const size_t n = d.ring.order.size();
    json sizes = json::array();
    for (const RingSize& s : d.ring.sizes) sizes.push_back(size_json(s));
    json j = {{"order", d.ring.order},
              {"ordered_by", d.ring.ordered_by},
              {"bus_factor", bus_factor(n)},
              {"sizes", sizes},
              {"slowest_edge", nullptr}};
    const RingSize* at = ring_verdict_size(d.ring);
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
                         {"cables", shared_cables(a, c.slow)},
                         {"busbw_GBps", c.busbw_gbs},
                         {"busbw_if_median_GBps", c.busbw_if_median_gbs},
                         {"cost", c.share},
                         {"path", edge_path(a, c.edge)}};
    return j;
}

std::vector<std::string> ring_summary(const MeshRunData& d, const MeshAnalysis& a) {
    std::vector<std::string> lines;
    const size_t n = d.ring.order.size();
    for (const RingSize& s : d.ring.sizes) {
        if (!s.measured) continue;
        lines.push_back(fmt::format(
            "ring: all-reduce of {} over {} ranks ({} order): {:.1f} us, algbw {:.3g} GB/s, "
            "busbw {:.3g} GB/s",
            format_size(s.bytes), n, d.ring.ordered_by, s.time_us, s.algbw_gbs, s.busbw_gbs));
    }
    const RingSize* at = ring_verdict_size(d.ring);
    const RingCost c = at ? ring_cost(*at, n, a.slow_ratio) : RingCost{};
    if (!c.found) return lines;
    const RingEdge& e = at->edges[c.edge];
    std::string through;
    for (const std::string& lane : edge_path(a, c.edge))
        through += (through.empty() ? "" : ", ") + lane;
    std::string others;
    if (c.slow.size() > 1)
        others = fmt::format(" and {} more edge(s) below {:.2f} of the median", c.slow.size() - 1,
                             a.slow_ratio);
    std::string cables;
    for (const std::string& cable : shared_cables(a, c.slow))
        cables += (cables.empty() ? "" : ", ") + cable;
    lines.push_back(fmt::format(
        "ring: slowest edge {} -> {} at {:.3g} Gb/s (the median edge {:.3g} Gb/s){} cost this "
        "ring {:.0f} % of its bus bandwidth at {} (busbw {:.3g} GB/s, {:.3g} GB/s were {} as "
        "fast as the median edge){}{}",
        host_of(d, e.src), host_of(d, e.dst), c.gbps, c.median_gbps, others, c.share * 100,
        format_size(at->bytes), c.busbw_gbs, c.busbw_if_median_gbs,
        c.slow.size() > 1 ? "they" : "it", through.empty() ? "" : "; its path: " + through,
        cables.empty() ? "" : "; the slow edges all cross " + cables));
    return lines;
}

}  // namespace fabscope::perf
