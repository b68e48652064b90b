#pragma once
// Counter rates over the last minutes, per port, for the sparklines: a fixed
// number of samples per port (the oldest dropped), one per reading.

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

struct PortSeries {
    PortRef port;
    std::string label;  ///< "leaf01[19] → spine01"
    /// Oldest first; at most History::kCapacity. Readings in which the port
    /// had no rate are absent (the series is shorter than the history).
    std::vector<RateSample> samples;
    int64_t last_ms = 0;  ///< when the newest sample was taken
    const RateSample& now() const { return samples.back(); }
};

class History {
  public:
    static constexpr size_t kCapacity = 150;  ///< 5 minutes at one reading every 2 s

    /// Appends one reading's rates; `label_of` names a port.
    template <class LabelFn>
    void add(int64_t t_ms, const RateMap& rates, LabelFn&& label_of) {
        for (const auto& [ref, r] : rates) {
            auto [it, fresh] = index_.try_emplace(ref, series_.size());
            if (fresh) series_.push_back(PortSeries{ref, label_of(ref), {}, 0});
            append(series_[it->second], t_ms, r);
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
