#pragma once
// The SA PathRecord (IBA vol 1, 15.2.5.16): the query of a path from a GID
// to a GID, and the decoding of the SA's answer. Pure byte layout, tested on
// hex dumps; `fabscope health` asks the SA for the path from a port to
// itself, which works only when an SM is running and answering.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "discover/mad_format.h"
#include "util/result.h"

namespace fabscope::sa {

using Gid = std::array<uint8_t, 16>;

/// "fe80:0000:0000:0000:0002:c903:0000:1234" (as sysfs prints it) -> bytes.
std::optional<Gid> parse_gid(std::string_view s);
/// The sysfs spelling of a GID.
std::string gid_text(const Gid& g);

// PathRecord ComponentMask bits (IBA vol 1, table 209).
inline constexpr uint64_t kPrDgid = 1ULL << 2;
inline constexpr uint64_t kPrSgid = 1ULL << 3;
inline constexpr uint64_t kPrDlid = 1ULL << 4;
inline constexpr uint64_t kPrSlid = 1ULL << 5;
inline constexpr uint64_t kPrNumbPath = 1ULL << 12;

inline constexpr size_t kPathRecordSize = 64;

struct PathRecord {
    Gid dgid{};
    Gid sgid{};
    uint16_t dlid = 0;
    uint16_t slid = 0;
    uint32_t flow_label = 0;
    uint8_t hop_limit = 0;
    uint8_t tclass = 0;
    bool reversible = false;
    uint8_t numb_path = 0;
    uint16_t pkey = 0;
    uint8_t sl = 0;
    uint8_t mtu = 0;   ///< the IBA code: 1 = 256 ... 5 = 4096
    uint8_t rate = 0;  ///< the IBA code: 2 = 2.5 Gb/s ... 16 = 100 Gb/s, 22 = 200 Gb/s
    uint8_t packet_life = 0;
};

/// A SubnAdmGet(PathRecord) from `sgid` to `dgid`, to the SA at `sm_lid`.
mad::Request path_request(uint16_t sm_lid, const Gid& sgid, const Gid& dgid);

/// A SubnAdmGet(PathRecord) from the port at `slid` to `dlid` (one path:
/// the one the SM gives that pair, with its SL), to the SA at `sm_lid`.
mad::Request path_request_by_lids(uint16_t sm_lid, uint16_t slid, uint16_t dlid);

/// The 64 bytes of a PathRecord, decoded.
PathRecord decode_path_record(std::span<const uint8_t, kPathRecordSize> bytes);

/// The PathRecord of a SubnAdmGetResp, checked: SA class and version, a
/// response method, PathRecord attribute, status 0 (else the SA's status
/// named), an AttributeOffset that is a whole record and fits in the MAD,
/// and a record that is not all zeros. Errors say what was wrong.
Result<PathRecord> decode_path_reply(std::span<const uint8_t, kMadSize> mad);

/// The SA's status (bits 8..15 of the MAD status) and the common ones, for people.
std::string sa_status_name(uint16_t status);

/// 256 .. 4096 for the MTU codes 1 .. 5; 0 for any other code.
int mtu_bytes(uint8_t code);

}  // namespace fabscope::sa
