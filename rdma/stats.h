#pragma once
// The numbers a performance test reports, computed from raw samples: latency
// percentiles, and bandwidth over the whole run, its best and worst short
// window (a flapping link hides in an average). Pure, so tested on samples.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabscope::perf {

struct LatencyStats {
    double min_us = 0;
    double median_us = 0;
    double p99_us = 0;
    double p999_us = 0;
    double max_us = 0;
    double mean_us = 0;
    uint64_t samples = 0;
};

/// Percentiles by nearest rank over `samples_us` (sorted in place).
LatencyStats latency_stats(std::vector<double>& samples_us);

/// Bytes completed at moments of a run, and the windows they fall in.
/// With CQ moderation one completion stands for many messages that finished
/// since the one before: their bytes are spread evenly over that gap, so a
/// completion every 130 ms neither fakes an empty 100 ms window nor a
/// doubled one, while a real stall still leaves its windows short.
class BandwidthMeter {
  public:
    /// `window_ns`: the short window for peak and minimum rates.
    explicit BandwidthMeter(uint64_t window_ns) : window_ns_(window_ns) {}
    /// `bytes` finished at `t_ns` (since the start of the measured run).
    void add(uint64_t t_ns, uint64_t bytes);
    /// Ends the run at `t_ns`.
    void finish(uint64_t t_ns);

    uint64_t bytes() const { return bytes_; }
    double seconds() const { return static_cast<double>(end_ns_) / 1e9; }
    /// Gb/s over the whole run.
    double average_gbps() const;
    /// Gb/s of the best and the worst complete window; 0 if none completed.
    double peak_gbps() const;
    double min_window_gbps() const;
    size_t windows() const { return per_window_.size(); }

  private:
    uint64_t window_ns_;
    uint64_t bytes_ = 0;
    uint64_t end_ns_ = 0;
    uint64_t last_ns_ = 0;            // the previous completion
    std::vector<double> per_window_;  // bytes finished in each complete-or-current window
};

}  // namespace fabscope::perf
