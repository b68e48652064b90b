#pragma once
// How the bandwidth loop waits for completions: it spins on the CQ while
// completions keep coming, and after `spins` empty polls in a row it arms the
// CQ and sleeps on its completion channel until the next completion (or
// `nap`, so the loop's checks still run). With 128 work requests in flight
// and one signalled completion per 100, the sender has nothing to do for most
// of a message train; spinning through it took a CPU that Soft-RoCE (rxe
// does its work in kernel threads and softirqs of the same machine) needed to
// move the data (bench/perf-vs-perftest.sh has the figures). On a NIC the
// spin covers the gaps between completions of small messages, and a sleeping
// sender still has tx_depth - cq_mod messages in flight when it wakes.

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>

namespace fabscope::perf {

class CqWaiter {
  public:
    /// ~1 ms of empty polls in the VM, ~0.1 ms on a NIC.
    static constexpr uint32_t kSpins = 2048;

    /// `channel` null: never sleeps (spins, as before).
    CqWaiter(ibv_cq* cq, ibv_comp_channel* channel, uint32_t spins = kSpins,
             std::chrono::milliseconds nap = std::chrono::milliseconds(10))
        : cq_(cq), channel_(channel), spins_(spins ? spins : 1), nap_(nap) {}

    /// Call after each poll of the CQ that found `n` completions. True when
    /// it slept (a completion event came, or `nap` passed): the caller's
    /// periodic checks are due.
    bool after_poll(int n);
    /// Times it slept, for tests and diagnostics.
    uint64_t sleeps() const { return sleeps_; }

  private:
    ibv_cq* cq_;
    ibv_comp_channel* channel_;
    uint32_t spins_;
    std::chrono::milliseconds nap_;
    uint32_t empty_ = 0;
    bool armed_ = false;
    uint64_t sleeps_ = 0;
};

}  // namespace fabscope::perf
