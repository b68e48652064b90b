#include "host/sysfs_parse.h"

#include <charconv>
#include <cmath>

namespace fabscope::host {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

template <class T>
std::optional<T> whole_number(std::string_view s, int base) {
    if (s.empty()) return std::nullopt;
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

}  // namespace

std::optional<NumberedName> parse_numbered_name(std::string_view s) {
    s = trim(s);
    auto colon = s.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    auto n = whole_number<int>(trim(s.substr(0, colon)), 10);
    std::string_view name = trim(s.substr(colon + 1));
    if (!n || name.empty() || name.size() > 64) return std::nullopt;
    return NumberedName{*n, std::string(name)};
}

std::optional<PortRate> parse_port_rate(std::string_view s) {
    s = trim(s);
    auto sp = s.find(' ');
    if (sp == std::string_view::npos) return std::nullopt;
    std::string_view num = s.substr(0, sp);
    std::string_view rest = s.substr(sp + 1);
    constexpr std::string_view kUnit = "Gb/sec (";
    if (rest.substr(0, kUnit.size()) != kUnit || rest.empty() || rest.back() != ')')
        return std::nullopt;
    std::string_view inner = rest.substr(kUnit.size(), rest.size() - kUnit.size() - 1);
    PortRate r;
    // "2.5", "12.5", "200": an integer with an optional ".5".
    auto dot = num.find('.');
    auto whole = whole_number<unsigned>(num.substr(0, dot), 10);
    if (!whole) return std::nullopt;
    r.gbps = *whole;
    if (dot != std::string_view::npos) {
        auto frac = num.substr(dot + 1);
        if (frac.empty() || frac.size() > 3 || !whole_number<unsigned>(frac, 10))
            return std::nullopt;
        r.gbps +=
            *whole_number<unsigned>(frac, 10) / std::pow(10.0, static_cast<double>(frac.size()));
    }
    auto x = inner.find('X');
    if (x == std::string_view::npos) return std::nullopt;
    auto lanes = whole_number<int>(inner.substr(0, x), 10);
    if (!lanes) return std::nullopt;
    switch (*lanes) {
        case 1: r.width = Width::X1; break;
        case 2: r.width = Width::X2; break;
        case 4: r.width = Width::X4; break;
        case 8: r.width = Width::X8; break;
        case 12: r.width = Width::X12; break;
        default: return std::nullopt;
    }
    std::string_view speed = trim(inner.substr(x + 1));
    if (speed.empty()) {
        r.speed = Speed::SDR;
    } else {
        auto sp2 = parse_speed(speed);
        if (!sp2) return std::nullopt;
        r.speed = *sp2;
    }
    return r;
}

std::optional<uint64_t> parse_uint(std::string_view s) {
    s = trim(s);
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return whole_number<uint64_t>(s.substr(2), 16);
    return whole_number<uint64_t>(s, 10);
}

std::optional<int64_t> parse_int(std::string_view s) {
    return whole_number<int64_t>(trim(s), 10);
}

std::optional<uint64_t> parse_guid(std::string_view s) {
    s = trim(s);
    if (s.size() != 19) return std::nullopt;
    uint64_t v = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (i % 5 == 4) {
            if (s[i] != ':') return std::nullopt;
            continue;
        }
        if (!is_hex(s[i])) return std::nullopt;
        v = (v << 4) | *whole_number<uint64_t>(s.substr(i, 1), 16);
    }
    return v;
}

std::optional<double> parse_pcie_speed(std::string_view s) {
    s = trim(s);
    auto sp = s.find(' ');
    if (sp == std::string_view::npos) return std::nullopt;
    std::string_view rest = trim(s.substr(sp + 1));
    if (rest.substr(0, 4) != "GT/s") return std::nullopt;
    std::string_view num = s.substr(0, sp);
    auto dot = num.find('.');
    auto whole = whole_number<unsigned>(num.substr(0, dot), 10);
    if (!whole || *whole > 1000) return std::nullopt;
    double v = *whole;
    if (dot != std::string_view::npos) {
        auto frac = num.substr(dot + 1);
        auto f = whole_number<unsigned>(frac, 10);
        if (!f || frac.size() > 3) return std::nullopt;
        v += *f / std::pow(10.0, static_cast<double>(frac.size()));
    }
    return v;
}

std::optional<int> parse_pcie_width(std::string_view s) {
    s = trim(s);
    if (!s.empty() && (s.front() == 'x' || s.front() == 'X')) s.remove_prefix(1);
    auto w = whole_number<int>(s, 10);
    if (!w || *w < 1 || *w > 32) return std::nullopt;
    return w;
}

bool is_gid(std::string_view s) {
    if (s.size() != 39) return false;
    for (size_t i = 0; i < s.size(); ++i) {
        if (i % 5 == 4 ? s[i] != ':' : !is_hex(s[i])) return false;
    }
    return true;
}

bool is_zero_gid(std::string_view s) {
    for (char c : s) {
        if (c != '0' && c != ':') return false;
    }
    return true;
}

}  // namespace fabscope::host
