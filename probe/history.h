#pragma once
// What a probe agent remembers of one peer (pure): per interval the probes
// sent, answered and lost and the round trips measured; over the sliding
// window (the last `window` intervals) the loss and p50/p99; and the peer's
// own baseline p99, the median of the per-interval p99s of the `baseline`
// intervals before the window, so a rise is judged against this pair's
// normal, not a fabric-wide constant.

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace fabscope::probe {

struct ProbeTally {
    uint64_t sent = 0;
    uint64_t answered = 0;
    uint64_t lost = 0;           ///< no answer within the probe timeout
    std::vector<double> rtt_us;  ///< the round trips answered
};

struct WindowFigures {
    uint64_t sent = 0;
    uint64_t answered = 0;
    uint64_t lost = 0;
    uint32_t intervals = 0;  ///< of the window, those with a probe sent
    double loss_ratio = 0;   ///< lost / (answered + lost)
    std::optional<double> p50_us;
    std::optional<double> p99_us;
};

/// The q-quantile (0..1) of `v` (nearest rank); nothing for an empty one.
std::optional<double> quantile(std::vector<double> v, double q);

class PeerHistory {
  public:
    PeerHistory(uint32_t window, uint32_t baseline) : window_(window), baseline_(baseline) {}

    /// The interval being measured.
    ProbeTally& current() { return current_; }
    /// Ends the current interval (kept, with its p99) and starts the next.
    void close_interval();

    /// The last `window` closed intervals.
    WindowFigures window() const;
    /// Median p99 of the `baseline` closed intervals before the window that
    /// had answers; nothing until there are that many.
    std::optional<double> baseline_p99() const;
    uint64_t total_sent() const { return total_sent_; }
    uint64_t total_lost() const { return total_lost_; }

  private:
    struct Closed {
        ProbeTally tally;  // rtt_us emptied once it leaves the window
        std::optional<double> p99_us;
    };
    uint32_t window_;
    uint32_t baseline_;
    ProbeTally current_;
    std::deque<Closed> closed_;  // newest last, at most window_ + baseline_
    uint64_t total_sent_ = 0;
    uint64_t total_lost_ = 0;
};

}  // namespace fabscope::probe
