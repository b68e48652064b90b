#include "rdma/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fabscope::perf {
namespace {

double nearest_rank(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

LatencyStats latency_stats(std::vector<double>& s) {
    LatencyStats st;
    if (s.empty()) return st;
    std::sort(s.begin(), s.end());
    st.samples = s.size();
    st.min_us = s.front();
    st.max_us = s.back();
    st.median_us = nearest_rank(s, 0.5);
    st.p99_us = nearest_rank(s, 0.99);
    st.p999_us = nearest_rank(s, 0.999);
    st.mean_us = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    return st;
}

void BandwidthMeter::add(uint64_t t_ns, uint64_t bytes) {
    t_ns = std::max(t_ns, last_ns_);
    const uint64_t from = last_ns_;
    const auto last_w = static_cast<size_t>(t_ns / window_ns_);
    if (per_window_.size() <= last_w) per_window_.resize(last_w + 1, 0);
    if (t_ns == from) {
        per_window_[last_w] += static_cast<double>(bytes);
    } else {
        const double per_ns = static_cast<double>(bytes) / static_cast<double>(t_ns - from);
        for (auto w = static_cast<size_t>(from / window_ns_); w <= last_w; ++w) {
            const uint64_t lo = std::max<uint64_t>(from, w * window_ns_);
            const uint64_t hi = std::min<uint64_t>(t_ns, (w + 1) * window_ns_);
            if (hi > lo) per_window_[w] += per_ns * static_cast<double>(hi - lo);
        }
    }
    bytes_ += bytes;
    last_ns_ = t_ns;
    end_ns_ = std::max(end_ns_, t_ns);
}

void BandwidthMeter::finish(uint64_t t_ns) {
    end_ns_ = std::max(end_ns_, t_ns);
    // Only windows that ended before the run did count for peak and minimum.
    size_t complete = static_cast<size_t>(end_ns_ / window_ns_);
    if (per_window_.size() > complete) per_window_.resize(complete);
    if (per_window_.size() < complete) per_window_.resize(complete, 0);
}

double BandwidthMeter::average_gbps() const {
    return end_ns_ ? static_cast<double>(bytes_) * 8.0 / static_cast<double>(end_ns_) : 0;
}

double BandwidthMeter::peak_gbps() const {
    if (per_window_.empty()) return 0;
    return *std::max_element(per_window_.begin(), per_window_.end()) * 8.0 /
           static_cast<double>(window_ns_);
}

double BandwidthMeter::min_window_gbps() const {
    if (per_window_.empty()) return 0;
    return *std::min_element(per_window_.begin(), per_window_.end()) * 8.0 /
           static_cast<double>(window_ns_);
}

}  // namespace fabscope::perf
