#pragma once
// Partitions: P_Keys as the P_Key tables hold them (15-bit key, bit 15 the
// full membership) and a port's membership of one (the check of the hosts'
// tables against the plan: check/partition_checks.h).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope {

inline constexpr uint16_t kPkeyFullMember = 0x8000;
inline constexpr uint16_t kPkeyBaseMask = 0x7FFF;
/// The default partition (0x7fff limited, 0xffff full): every port is in it.
inline constexpr uint16_t kDefaultPkeyBase = 0x7FFF;

/// "0x8001" or "32769": a 16-bit P_Key; nothing for anything else.
std::optional<uint16_t> parse_pkey(std::string_view s);
std::string format_pkey(uint16_t k);  ///< "0x8001"

enum class Membership : uint8_t { None, Limited, Full };
std::string_view name(Membership m);  ///< "none", "limited", "full"

/// A port's membership of the partition with base key `base`: Full when an
/// entry has the full bit, Limited when only a limited one is there.
Membership membership_of(const std::vector<uint16_t>& pkeys, uint16_t base);

}  // namespace fabscope
