#pragma once
// Time, behind one interface so that deadlines, durations and the stamps on
// readings can be tested without waiting: the MAD engine, the counter
// readers, perf sessions and the TUI all take a Clock. SystemClock is the
// real one; tests use a ManualClock that moves only when told to.

#include <chrono>
#include <cstdint>

namespace fabscope {

class Clock {
  public:
    using time_point = std::chrono::steady_clock::time_point;
    virtual ~Clock() = default;
    /// Monotonic time: deadlines and durations.
    virtual time_point now() const = 0;
    /// Wall-clock time, milliseconds since the Unix epoch: when a reading was taken.
    virtual int64_t unix_ms() const = 0;
};

class SystemClock final : public Clock {
  public:
    time_point now() const override { return std::chrono::steady_clock::now(); }
    int64_t unix_ms() const override;
};

/// The process's real clock, for callers that are not handed one.
const Clock& system_clock();

/// A clock that stands still until advanced; wall time moves with it.
class ManualClock final : public Clock {
  public:
    explicit ManualClock(int64_t unix_ms_at_start = 1767225600000)  // 2026-01-01T00:00:00Z
        : wall_start_ms_(unix_ms_at_start) {}
    time_point now() const override { return now_; }
    int64_t unix_ms() const override {
        return wall_start_ms_ +
               std::chrono::duration_cast<std::chrono::milliseconds>(now_.time_since_epoch())
                   .count();
    }
    void advance(std::chrono::nanoseconds d) { now_ += d; }

  private:
    time_point now_{};
    int64_t wall_start_ms_;
};

}  // namespace fabscope
