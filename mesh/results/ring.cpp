#include "mesh/results/ring.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fabscope::perf {

double bus_factor(size_t ranks) {
    return ranks == 0 ? 0 : 2.0 * static_cast<double>(ranks - 1) / static_cast<double>(ranks);
}

uint32_t ring_steps(size_t ranks) {
    return ranks < 2 ? 0 : static_cast<uint32_t>(2 * (ranks - 1));
}

RingCost ring_cost(const RingSize& s, size_t ranks, double slow_ratio) {
    RingCost c;
    std::vector<size_t> measured;
    for (size_t i = 0; i < s.edges.size(); ++i) {
        if (s.edges[i].error.empty() && s.edges[i].steps > 0 && s.edges[i].mean_us > 0)
            measured.push_back(i);
    }
    if (measured.size() < 2 || !s.measured || s.time_us <= 0) return c;
    c.found = true;
    std::sort(measured.begin(), measured.end(),
              [&](size_t a, size_t b) { return s.edges[a].mean_us > s.edges[b].mean_us; });
    c.edge = measured.front();
    const size_t m = measured.size();
    auto us = [&](size_t k) { return s.edges[measured[k]].mean_us; };
    const double median_us = m % 2 ? us(m / 2) : (us(m / 2 - 1) + us(m / 2)) / 2;
    const double chunk_bits = static_cast<double>(s.chunk) * 8;
    c.median_gbps = median_us > 0 ? chunk_bits / median_us / 1e3 : 0;
    c.gbps = s.edges[c.edge].gbps;
    size_t fixed = 0;  // the slow ones lead `measured`
    while (fixed < m && (fixed == 0 || s.edges[measured[fixed]].gbps < slow_ratio * c.median_gbps))
        c.slow.push_back(measured[fixed++]);
    // A step were the slow edges the median: the slowest of the others, or the median.
    const double next_us = fixed < m ? std::max(us(fixed), median_us) : median_us;
    const double steps = ring_steps(ranks);
    const double rest_us = std::max(0.0, s.time_us - steps * us(0));
    const double fixed_us = steps * next_us + rest_us;
    c.busbw_gbs = s.busbw_gbs;
    c.busbw_if_median_gbs = fixed_us > 0 ? s.busbw_gbs * s.time_us / fixed_us : s.busbw_gbs;
    c.share = c.busbw_if_median_gbs > 0 ? 1 - c.busbw_gbs / c.busbw_if_median_gbs : 0;
    c.share = std::clamp(c.share, 0.0, 1.0);
    return c;
}

const RingSize* ring_verdict_size(const RingResult& r) {
    const RingSize* best = nullptr;
    for (const RingSize& s : r.sizes) {
        if (s.measured && (!best || s.bytes > best->bytes)) best = &s;
    }
    return best;
}

std::string ring_name(const std::vector<RingResult>& rings, const RingResult& ring) {
    return rings.size() > 1 ? fmt::format("plane {}'s ring", ring.plane) : "the ring";
}

RingPlanesCost ring_planes_cost(const std::vector<RingResult>& rings) {
    RingPlanesCost c;
    if (rings.size() < 2) return c;
    // The largest size every ring measured.
    uint64_t common = UINT64_MAX;
    for (const RingResult& r : rings) {
        const RingSize* at = ring_verdict_size(r);
        if (!at) return c;
        common = std::min(common, at->bytes);
    }
    std::vector<double> busbw;  // each ring's at that size
    busbw.reserve(rings.size());
    for (const RingResult& r : rings) {
        auto at = std::find_if(r.sizes.begin(), r.sizes.end(),
                               [&](const RingSize& s) { return s.measured && s.bytes == common; });
        if (at == r.sizes.end() || at->busbw_gbs <= 0) return c;
        busbw.push_back(at->busbw_gbs);
    }
    const auto slowest = std::min_element(busbw.begin(), busbw.end());
    const auto fastest = std::max_element(busbw.begin(), busbw.end());  // the first of equals
    c.slowest = static_cast<size_t>(slowest - busbw.begin());
    c.fastest = static_cast<size_t>(fastest - busbw.begin());
    const auto planes = static_cast<double>(rings.size());
    c.found = true;
    c.bytes = common;
    c.busbw_gbs = planes * *slowest;
    c.busbw_if_fastest_gbs = planes * *fastest;
    c.share = std::clamp(1 - c.busbw_gbs / c.busbw_if_fastest_gbs, 0.0, 1.0);
    return c;
}

}  // namespace fabscope::perf
