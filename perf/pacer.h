#pragma once
// How often a busy loop asks whether to stop. Checking the peer's socket and
// the deadline costs a system call, so a data-path loop does it at most every
// `interval`; but it asks the pacer on every iteration, whatever the poll
// returned, so a loop that never sees an empty poll still meets its deadline.

#include <chrono>

#include "util/clock.h"

namespace fabscope::perf {

class Pacer {
  public:
    explicit Pacer(std::chrono::milliseconds interval = std::chrono::milliseconds(10),
                   const Clock& clock = system_clock())
        : clock_(clock), interval_(interval), last_(clock.now()) {}
    /// True when `interval` has passed since the last time it said so.
    bool due() {
        auto now = clock_.now();
        if (now - last_ < interval_) return false;
        last_ = now;
        return true;
    }

  private:
    const Clock& clock_;
    std::chrono::milliseconds interval_;
    Clock::time_point last_;
};

}  // namespace fabscope::perf
