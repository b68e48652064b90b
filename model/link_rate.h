#pragma once
// Link width and speed: the values PortInfo reports, their names, and rates.
// Widths and speeds are kept as enums ordered by rate, and sets of them as
// small bitsets, so "the best both ends support" is an intersection and a max.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope {

enum class Width : uint8_t { X1, X2, X4, X8, X12 };
inline constexpr int kWidthCount = 5;

/// Lane signalling speeds. FDR10 is Mellanox's 10.3125 Gb/s 64b/66b mode,
/// reported only through its vendor ExtendedPortInfo.
enum class Speed : uint8_t { SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR };
inline constexpr int kSpeedCount = 9;

template <class E, int N>
class EnumSet {
  public:
    constexpr EnumSet() = default;
    constexpr EnumSet(std::initializer_list<E> items) {
        for (E e : items) insert(e);
    }
    static constexpr EnumSet from_bits(uint32_t bits) {
        EnumSet s;
        s.bits_ = bits & ((1U << N) - 1);
        return s;
    }
    constexpr void insert(E e) { bits_ |= 1U << static_cast<unsigned>(e); }
    constexpr bool contains(E e) const { return (bits_ >> static_cast<unsigned>(e)) & 1U; }
    constexpr bool empty() const { return bits_ == 0; }
    constexpr uint32_t bits() const { return bits_; }
    constexpr EnumSet operator&(EnumSet o) const { return from_bits(bits_ & o.bits_); }
    constexpr EnumSet operator|(EnumSet o) const { return from_bits(bits_ | o.bits_); }
    constexpr bool operator==(const EnumSet&) const = default;
    /// The highest member (the fastest speed, the widest width), if any.
    constexpr std::optional<E> best() const {
        for (int i = N - 1; i >= 0; --i) {
            if ((bits_ >> i) & 1U) return static_cast<E>(i);
        }
        return std::nullopt;
    }
    std::vector<E> members() const {
        std::vector<E> out;
        for (int i = 0; i < N; ++i) {
            if ((bits_ >> i) & 1U) out.push_back(static_cast<E>(i));
        }
        return out;
    }

  private:
    uint32_t bits_ = 0;
};

using WidthSet = EnumSet<Width, kWidthCount>;
using SpeedSet = EnumSet<Speed, kSpeedCount>;

int lanes(Width w);
/// Signalling rate of one lane in Gb/s, as iblinkinfo prints it (53.125 for HDR).
double lane_signal_gbps(Speed s);
/// Data rate of one lane in Gb/s after line encoding (50 for HDR).
double lane_data_gbps(Speed s);
/// Data rate of a link, e.g. 4X HDR -> 200.
double link_data_gbps(Width w, Speed s);

std::string_view name(Width w);                        ///< "4X"
std::string_view name(Speed s);                        ///< "HDR"
std::optional<Width> parse_width(std::string_view s);  ///< "4x", "4X"
std::optional<Speed> parse_speed(std::string_view s);  ///< "hdr", "HDR"
std::string to_string(WidthSet s);                     ///< "1X,4X"
std::string to_string(SpeedSet s);

// --- PortInfo encodings (IBA vol 1, 14.2.5.6) --------------------------------

/// LinkWidth{Active,Enabled,Supported}: 1=1X 2=4X 4=8X 8=12X 16=2X.
WidthSet widths_from_portinfo(uint32_t mask);
uint32_t portinfo_width_bits(WidthSet s);
/// LinkSpeed{Active,Enabled,Supported}: 1=SDR 2=DDR 4=QDR.
SpeedSet speeds_from_portinfo(uint32_t mask);
/// LinkSpeedExt{Active,Enabled,Supported}: 1=FDR 2=EDR 4=HDR 8=NDR. Enabled 30
/// means "extended speeds disabled"; 31 means "all supported".
SpeedSet ext_speeds_from_portinfo(uint32_t mask);

}  // namespace fabscope
