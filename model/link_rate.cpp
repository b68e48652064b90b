#include "model/link_rate.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace fabscope {
namespace {

struct SpeedInfo {
    std::string_view name;
    double signal_gbps;
    double data_gbps;
};

// Signalling rate and data rate per lane (8b/10b up to QDR, 64b/66b for
// FDR10..EDR, PAM4 with FEC above; data rates as the IBTA roadmap quotes them).
constexpr std::array<SpeedInfo, kSpeedCount> kSpeeds{{
    {"SDR", 2.5, 2.0},
    {"DDR", 5.0, 4.0},
    {"QDR", 10.0, 8.0},
    {"FDR10", 10.3125, 10.0},
    {"FDR", 14.0625, 13.64},
    {"EDR", 25.78125, 25.0},
    {"HDR", 53.125, 50.0},
    {"NDR", 106.25, 100.0},
    {"XDR", 212.5, 200.0},
}};

constexpr std::array<std::string_view, kWidthCount> kWidthNames{"1X", "2X", "4X", "8X", "12X"};
constexpr std::array<int, kWidthCount> kLanes{1, 2, 4, 8, 12};

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::toupper(static_cast<unsigned char>(x)) ==
                      std::toupper(static_cast<unsigned char>(y));
           });
}

template <class Set, class Fn>
std::string join_names(Set s, Fn fn) {
    std::string out;
    for (auto e : s.members()) {
        if (!out.empty()) out += ',';
        out += fn(e);
    }
    return out;
}

}  // namespace

int lanes(Width w) {
    return kLanes[static_cast<size_t>(w)];
}
double lane_signal_gbps(Speed s) {
    return kSpeeds[static_cast<size_t>(s)].signal_gbps;
}
double lane_data_gbps(Speed s) {
    return kSpeeds[static_cast<size_t>(s)].data_gbps;
}
double link_data_gbps(Width w, Speed s) {
    return lanes(w) * lane_data_gbps(s);
}

std::string_view name(Width w) {
    return kWidthNames[static_cast<size_t>(w)];
}
std::string_view name(Speed s) {
    return kSpeeds[static_cast<size_t>(s)].name;
}

std::optional<Width> parse_width(std::string_view s) {
    for (int i = 0; i < kWidthCount; ++i) {
        if (iequals(s, kWidthNames[static_cast<size_t>(i)])) return static_cast<Width>(i);
    }
    return std::nullopt;
}

std::optional<Speed> parse_speed(std::string_view s) {
    for (int i = 0; i < kSpeedCount; ++i) {
        if (iequals(s, kSpeeds[static_cast<size_t>(i)].name)) return static_cast<Speed>(i);
    }
    return std::nullopt;
}

std::string to_string(WidthSet s) {
    return join_names(s, [](Width w) { return std::string(name(w)); });
}
std::string to_string(SpeedSet s) {
    return join_names(s, [](Speed v) { return std::string(name(v)); });
}

WidthSet widths_from_portinfo(uint32_t mask) {
    WidthSet s;
    if (mask & 1U) s.insert(Width::X1);
    if (mask & 2U) s.insert(Width::X4);
    if (mask & 4U) s.insert(Width::X8);
    if (mask & 8U) s.insert(Width::X12);
    if (mask & 16U) s.insert(Width::X2);
    return s;
}

uint32_t portinfo_width_bits(WidthSet s) {
    uint32_t m = 0;
    if (s.contains(Width::X1)) m |= 1U;
    if (s.contains(Width::X4)) m |= 2U;
    if (s.contains(Width::X8)) m |= 4U;
    if (s.contains(Width::X12)) m |= 8U;
    if (s.contains(Width::X2)) m |= 16U;
    return m;
}

SpeedSet speeds_from_portinfo(uint32_t mask) {
    SpeedSet s;
    if (mask & 1U) s.insert(Speed::SDR);
    if (mask & 2U) s.insert(Speed::DDR);
    if (mask & 4U) s.insert(Speed::QDR);
    return s;
}

SpeedSet ext_speeds_from_portinfo(uint32_t mask) {
    SpeedSet s;
    if (mask == 30 || mask == 31) return s;  // control values, not speeds
    if (mask & 1U) s.insert(Speed::FDR);
    if (mask & 2U) s.insert(Speed::EDR);
    if (mask & 4U) s.insert(Speed::HDR);
    if (mask & 8U) s.insert(Speed::NDR);
    return s;
}

}  // namespace fabscope
