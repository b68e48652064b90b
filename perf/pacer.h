#pragma once
// How often a busy loop asks whether to stop. Checking the peer's socket and
// the deadline costs a system call, so a data-path loop does it at most every
// `interval`; but it asks the pacer on every iteration, whatever the poll
// returned, so a loop that never sees an empty poll still meets its deadline.
//
// The pacer itself reads the clock only once per `stride` calls: where the
// clock is not in the vDSO (the Soft-RoCE VM under software emulation falls
// back to the clock_gettime system call), a read on every spin put a kernel
// entry in every poll of the CQ, which perftest's polling loop does not have,
// and cost bandwidth and latency (bench/perf-vs-perftest.sh).

#include <chrono>
#include <cstdint>

#include "util/clock.h"

namespace fabscope::perf {

class Pacer {
  public:
    /// An empty CQ poll takes ~0.05 us on a NIC and ~1 us in the VM: 256 of
    /// them delay a check by well under a millisecond.
    static constexpr uint32_t kStride = 256;

    explicit Pacer(std::chrono::milliseconds interval = std::chrono::milliseconds(10),
                   const Clock& clock = system_clock(), uint32_t stride = kStride)
        : clock_(clock), interval_(interval), stride_(stride ? stride : 1), last_(clock.now()) {}
    /// True when `interval` has passed since the last time it said so (seen
    /// at the next call that reads the clock).
    bool due() {
        if (++calls_ < stride_) return false;
        calls_ = 0;
        auto now = clock_.now();
        if (now - last_ < interval_) return false;
        last_ = now;
        return true;
    }

  private:
    const Clock& clock_;
    std::chrono::milliseconds interval_;
    uint32_t stride_;
    uint32_t calls_ = 0;
    Clock::time_point last_;
};

}  // namespace fabscope::perf
