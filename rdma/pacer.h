#pragma once
// How often a busy loop asks whether to stop. Checking the peer's socket and
// the deadline costs a system call, so a data-path loop does it at most every
// `interval`; but it asks the pacer on every iteration, whatever the poll
// returned, so a loop that never sees an empty poll still meets its deadline.
//
// The pacer reads the clock only once per `stride` calls, and fits the stride
// to what a call costs: two to four reads per interval, whether a spin is an
// empty CQ poll on a NIC (~0.05 us) or in the Soft-RoCE VM (~2 us). Where the
// clock is not in the vDSO (that VM, once its kernel finds the TSC unstable,
// falls back to the clock_gettime system call), a read every 256 spins still
// put ~1,500 kernel entries a second into a loop that perftest runs with none
// (bench/perf-vs-perftest.sh).

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "util/clock.h"

namespace fabscope::perf {

class Pacer {
  public:
    /// The stride to start from, and the least it falls to.
    static constexpr uint32_t kStride = 256;
    /// The most it grows to: a loop whose spins turn slow (a burst of posts)
    /// is late to check by at most this many of them.
    static constexpr uint32_t kMaxStride = 16384;

    explicit Pacer(std::chrono::milliseconds interval = std::chrono::milliseconds(10),
                   const Clock& clock = system_clock(), uint32_t stride = kStride,
                   uint32_t max_stride = kMaxStride)
        : clock_(clock),
          interval_(interval),
          min_stride_(stride ? stride : 1),
          max_stride_(std::max(max_stride, min_stride_)),
          stride_(min_stride_),
          last_(clock.now()),
          last_read_(last_) {}
    /// True when `interval` has passed since the last time it said so (seen
    /// at the next call that reads the clock).
    bool due() {
        if (++calls_ < stride_) return false;
        calls_ = 0;
        auto now = clock_.now();
        fit_stride(now - last_read_);
        last_read_ = now;
        if (now - last_ < interval_) return false;
        last_ = now;
        return true;
    }
    uint32_t stride() const { return stride_; }

  private:
    // Double the stride while a stride takes less than a quarter interval,
    // halve it when one took more than half: two to four reads per interval.
    void fit_stride(Clock::time_point::duration took) {
        if (took * 4 < interval_)
            stride_ = std::min(stride_ * 2, max_stride_);
        else if (took * 2 > interval_)
            stride_ = std::max(stride_ / 2, min_stride_);
    }

    const Clock& clock_;
    std::chrono::milliseconds interval_;
    uint32_t min_stride_;
    uint32_t max_stride_;
    uint32_t stride_;
    uint32_t calls_ = 0;
    Clock::time_point last_;
    Clock::time_point last_read_;
};

}  // namespace fabscope::perf
