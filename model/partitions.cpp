#include "model/partitions.h"

#include <fmt/format.h>

#include <charconv>

namespace fabscope {

std::optional<uint16_t> parse_pkey(std::string_view s) {
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    unsigned v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty() || v > 0xFFFF)
        return std::nullopt;
    return static_cast<uint16_t>(v);
}

std::string format_pkey(uint16_t k) {
    return fmt::format("{:#06x}", k);
}

std::string_view name(Membership m) {
    switch (m) {
        case Membership::None: return "none";
        case Membership::Limited: return "limited";
        case Membership::Full: return "full";
    }
    return "?";
}

Membership membership_of(const std::vector<uint16_t>& pkeys, uint16_t base) {
    Membership m = Membership::None;
    for (uint16_t k : pkeys) {
        if ((k & kPkeyBaseMask) != base) continue;
        if ((k & kPkeyFullMember) != 0) return Membership::Full;
        m = Membership::Limited;
    }
    return m;
}

}  // namespace fabscope
