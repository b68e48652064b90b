#pragma once
// Counter rates per port: a sparkline sample per reading (a fixed number per
// port, the oldest dropped), the rates over the recent window that every view
// shows and sorts by, and the errors counted since the port's first reading.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/port_rates.h"

namespace fabscope::tui {

struct RateSample {
    float gbps = 0;    ///< the larger of transmit and receive
    float errors = 0;  ///< error counter increments per second
    float wait = -1;   ///< PortXmitWait share of the time; -1 unknown
};

RateSample sample_of(const PortRates& r);

struct PortSeries {
    PortRef port;
    std::string label;  ///< "leaf01[19] → spine01"
    /// Between consecutive readings, oldest first; at most History::kCapacity.
    /// Readings in which the port had no rate are absent (the series is
    /// shorter than the history).
    std::vector<RateSample> samples;
    int64_t last_ms = 0;        ///< when the newest sample was taken
    RateSample recent;          ///< over the rate window (BuilderConfig::rate_window_s)
    double recent_s = 0;        ///< what `recent` spans
    uint64_t errors_total = 0;  ///< error counter increments since the port's first reading
    const RateSample& now() const { return samples.back(); }
};

/// One reading's rates, each over its own span.
struct ReadingRates {
    const RateMap& step;    ///< since the previous reading: a sparkline sample
    const RateMap& recent;  ///< over the rate window: the number shown and sorted by
    const RateMap& total;   ///< since each port's first reading
};

class History {
  public:
    static constexpr size_t kCapacity = 150;  ///< 5 minutes at one reading every 2 s

    /// Folds in one reading's rates; `label_of` names a port.
    template <class LabelFn>
    void add(int64_t t_ms, const ReadingRates& rates, LabelFn&& label_of) {
        for (const auto& [ref, r] : rates.recent) {
            auto [it, fresh] = index_.try_emplace(ref, series_.size());
            if (fresh) series_.push_back(PortSeries{ref, label_of(ref), {}, 0, {}, 0, 0});
            PortSeries& s = series_[it->second];
            if (auto step = rates.step.find(ref); step != rates.step.end())
                append(s, t_ms, step->second);
            s.recent = sample_of(r);
            s.recent_s = r.seconds;
            if (auto t = rates.total.find(ref); t != rates.total.end())
                s.errors_total = t->second.errors;
        }
        ++readings_;
    }

    const std::vector<PortSeries>& series() const { return series_; }
    size_t readings() const { return readings_; }

  private:
    static void append(PortSeries& s, int64_t t_ms, const PortRates& r);

    std::vector<PortSeries> series_;
    std::map<PortRef, size_t> index_;
    size_t readings_ = 0;
};

}  // namespace fabscope::tui
