#pragma once
// Wall-clock stamps for reports and a monotonic stopwatch for durations.

#include <chrono>
#include <cstdint>
#include <string>

namespace fabscope {

/// Now, as ISO 8601 UTC with seconds: "2026-11-29T16:01:54Z".
std::string iso8601_now();
/// "2026-11-29T19:45:12Z" for a Unix time in milliseconds.
std::string iso8601(int64_t unix_ms);
/// Now, as milliseconds since the Unix epoch.
int64_t unix_millis_now();
/// Milliseconds from now until `end`, 0 once it has passed: poll(2)'s
/// timeout for a deadline that does not restart.
int remaining_ms(std::chrono::steady_clock::time_point end);

class Stopwatch {
  public:
    Stopwatch() : start_(std::chrono::steady_clock::now()) {}
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

  private:
    std::chrono::steady_clock::time_point start_;
};

}  // namespace fabscope
