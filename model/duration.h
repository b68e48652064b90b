#pragma once
// Durations as people write them on the command line and in files:
// "500ms", "10s", "1.5m", "1h", "2d"; a bare number is seconds.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fabscope {

using Millis = std::chrono::milliseconds;

std::optional<Millis> parse_duration(std::string_view s);
/// "10s", "1m30s" style, for messages.
std::string format_duration(Millis d);

}  // namespace fabscope
