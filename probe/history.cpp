#include "probe/history.h"

#include <algorithm>
#include <cmath>

namespace fabscope::probe {

std::optional<double> quantile(std::vector<double> v, double q) {
    if (v.empty()) return std::nullopt;
    const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    const size_t k = std::clamp<size_t>(rank, 1, v.size()) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

void PeerHistory::close_interval() {
    total_sent_ += current_.sent;
    total_lost_ += current_.lost;
    Closed c{std::move(current_), std::nullopt};
    c.p99_us = quantile(c.tally.rtt_us, 0.99);
    closed_.push_back(std::move(c));
    current_ = ProbeTally{};
    while (closed_.size() > size_t{window_} + baseline_) closed_.pop_front();
    if (closed_.size() > window_) {
        // Out of the window: only its p99 is needed (for the baseline).
        auto& old = closed_[closed_.size() - window_ - 1].tally.rtt_us;
        old.clear();
        old.shrink_to_fit();
    }
}

WindowFigures PeerHistory::window() const {
    WindowFigures w;
    std::vector<double> rtt;
    const size_t from = closed_.size() > window_ ? closed_.size() - window_ : 0;
    for (size_t i = from; i < closed_.size(); ++i) {
        const ProbeTally& t = closed_[i].tally;
        w.sent += t.sent;
        w.answered += t.answered;
        w.lost += t.lost;
        if (t.sent > 0) ++w.intervals;
        rtt.insert(rtt.end(), t.rtt_us.begin(), t.rtt_us.end());
    }
    const uint64_t judged = w.answered + w.lost;
    if (judged > 0) w.loss_ratio = static_cast<double>(w.lost) / static_cast<double>(judged);
    w.p50_us = quantile(rtt, 0.5);
    w.p99_us = quantile(std::move(rtt), 0.99);
    return w;
}

std::optional<double> PeerHistory::baseline_p99() const {
    if (baseline_ == 0 || closed_.size() <= window_) return std::nullopt;
    std::vector<double> p99s;
    for (size_t i = 0; i + window_ < closed_.size(); ++i) {
        if (closed_[i].p99_us) p99s.push_back(*closed_[i].p99_us);
    }
    if (p99s.size() < baseline_) return std::nullopt;
    return quantile(std::move(p99s), 0.5);
}

}  // namespace fabscope::probe
