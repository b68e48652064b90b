#include "util/duration.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace fabscope {

std::optional<double> parse_duration_ms(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.empty()) return std::nullopt;
    size_t unit = s.find_first_not_of("0123456789.");
    std::string_view number = s.substr(0, unit);
    std::string_view suffix = unit == std::string_view::npos ? "" : s.substr(unit);
    if (number.empty()) return std::nullopt;
    double value = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || ptr != number.data() + number.size() || !std::isfinite(value))
        return std::nullopt;
    double ms = 0;
    if (suffix == "ms")
        ms = value;
    else if (suffix.empty() || suffix == "s")
        ms = value * 1e3;
    else if (suffix == "m" || suffix == "min")
        ms = value * 60e3;
    else if (suffix == "h")
        ms = value * 3600e3;
    else if (suffix == "d")
        ms = value * 86400e3;
    else
        return std::nullopt;
    if (ms > 365.0 * 86400e3) return std::nullopt;
    return ms;
}

std::optional<Millis> parse_duration(std::string_view s) {
    auto ms = parse_duration_ms(s);
    if (!ms || (*ms > 0 && *ms < 1)) return std::nullopt;
    return Millis(static_cast<int64_t>(std::llround(*ms)));
}

std::string format_duration(Millis d) {
    int64_t ms = d.count();
    if (ms % 3600000 == 0 && ms >= 3600000) return fmt::format("{}h", ms / 3600000);
    if (ms % 60000 == 0 && ms >= 60000) return fmt::format("{}m", ms / 60000);
    if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
    if (ms >= 1000) return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
    return fmt::format("{}ms", ms);
}

}  // namespace fabscope
