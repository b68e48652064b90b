#include "util/time_util.h"

#include <algorithm>
#include <ctime>

namespace fabscope {

std::string iso8601_now() {
    return iso8601(unix_millis_now());
}

std::string iso8601(int64_t unix_ms) {
    const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

int64_t unix_millis_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

int remaining_ms(std::chrono::steady_clock::time_point end) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          end - std::chrono::steady_clock::now())
                          .count();
    return static_cast<int>(std::max<int64_t>(0, left));
}

}  // namespace fabscope
