#pragma once
// Durations as people write them on the command line and in files:
// "500ms", "10s", "1.5m", "1h", "2d"; a bare number is seconds.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fabscope {

using Millis = std::chrono::milliseconds;

/// Nothing for text that is no duration, and for one between 0 and 1 ms,
/// which would otherwise round to 0 and silently mean "no wait at all".
std::optional<Millis> parse_duration(std::string_view s);
/// The same, unrounded, in milliseconds (so a caller can say why 0.1ms is refused).
std::optional<double> parse_duration_ms(std::string_view s);
/// "10s", "1m30s" style, for messages.
std::string format_duration(Millis d);

}  // namespace fabscope
