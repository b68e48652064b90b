#pragma once
// The 256-byte MADs fabscope sends and the replies it accepts: subnet
// management (directed-route and LID-routed) and performance management
// Gets. Pure byte layout (IBA vol 1, 13.4 and 14.2; 16.1 for the PMA), so it
// is tested without a device and shared by the real transport and the fakes.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/fabric.h"

namespace fabscope {

inline constexpr size_t kMadSize = 256;
using MadBytes = std::array<uint8_t, kMadSize>;

namespace mad {

inline constexpr uint8_t kClassSmpLid = 0x01;
inline constexpr uint8_t kClassSmpDirected = 0x81;
inline constexpr uint8_t kClassPerf = 0x04;
inline constexpr uint8_t kClassSubnAdm = 0x03;  // SA (IBA vol 1, 15.2): class version 2

inline constexpr uint8_t kMethodGet = 0x01;
inline constexpr uint8_t kMethodSet = 0x02;
inline constexpr uint8_t kMethodGetResp = 0x81;

inline constexpr uint16_t kAttrClassPortInfo = 0x0001;
inline constexpr uint16_t kAttrNodeDescription = 0x0010;
inline constexpr uint16_t kAttrNodeInfo = 0x0011;
inline constexpr uint16_t kAttrSwitchInfo = 0x0012;
inline constexpr uint16_t kAttrPortInfo = 0x0015;
inline constexpr uint16_t kAttrPKeyTable = 0x0016;
inline constexpr uint16_t kAttrSLtoVLMappingTable = 0x0017;
inline constexpr uint16_t kAttrLinearForwardingTable = 0x0019;
inline constexpr uint16_t kAttrSMInfo = 0x0020;
inline constexpr uint16_t kAttrPortInfoExtended = 0x0033;            // SMP, optional (FEC mode)
inline constexpr uint16_t kAttrPortSamplesControl = 0x0010;          // PMA (its Tick)
inline constexpr uint16_t kAttrPortCounters = 0x0012;                // PMA
inline constexpr uint16_t kAttrPortCountersExtended = 0x001D;        // PMA
inline constexpr uint16_t kAttrPortVLXmitWaitCounters = 0x001C;      // PMA, optional
inline constexpr uint16_t kAttrPortRcvErrorDetails = 0x0015;         // PMA, optional
inline constexpr uint16_t kAttrPortXmitDiscardDetails = 0x0016;      // PMA, optional
inline constexpr uint16_t kAttrPortExtendedSpeedsCounters = 0x001F;  // PMA, optional
inline constexpr uint16_t kAttrPathRecord = 0x0035;                  // SA

inline constexpr size_t kSmpDataOffset = 64;
inline constexpr size_t kPmaDataOffset = 64;
inline constexpr size_t kPmaDataSize = 192;
inline constexpr size_t kMaxDrHops = 63;
// SA MADs (IBA vol 1, 15.2.1.1): RMPP header at 24, SM_Key at 36,
// AttributeOffset at 44 (in 8-byte words), ComponentMask at 48, data at 56.
inline constexpr size_t kSaAttrOffsetOffset = 44;
inline constexpr size_t kSaComponentMaskOffset = 48;
inline constexpr size_t kSaDataOffset = 56;
inline constexpr size_t kSaDataSize = 200;

/// Where a MAD goes: along a directed route of egress ports from the local
/// port, or to a LID through the forwarding tables.
struct Address {
    std::vector<uint8_t> dr_path;  ///< egress port per hop; empty = the local node
    Lid lid = 0;                   ///< LID-routed destination (0 = directed route)
    bool directed() const { return lid == 0; }
    std::string str() const;  ///< "DR 0,1,5,3" or "LID 17"
};

/// A Get request. `port_select` fills the PMA PortSelect for counter Gets;
/// an SA Get (SubnAdmGet) carries a record template and the mask of its
/// fields the SA is to match.
struct Request {
    uint8_t mgmt_class = kClassSmpDirected;
    uint16_t attr_id = 0;
    uint32_t attr_mod = 0;
    Address to;
    uint8_t port_select = 0;
    uint64_t component_mask = 0;       ///< SA only
    std::vector<uint8_t> sa_template;  ///< SA only; at most kSaDataSize bytes are sent
};

/// An SMP Get of `attr` with `mod` to `to`, directed or LID-routed as `to` is.
inline Request smp_get(uint16_t attr, uint32_t mod, const Address& to) {
    return Request{to.directed() ? kClassSmpDirected : kClassSmpLid, attr, mod, to, 0, 0, {}};
}

MadBytes encode_get(const Request& r, uint64_t tid);

/// What the header of a received MAD says.
struct Header {
    uint8_t base_version = 0;
    uint8_t mgmt_class = 0;
    uint8_t class_version = 0;
    uint8_t method = 0;
    uint16_t status = 0;  ///< without the DR direction bit
    uint64_t tid = 0;
    uint16_t attr_id = 0;
    uint32_t attr_mod = 0;
};
Header decode_header(std::span<const uint8_t, kMadSize> mad);

/// The 64 bytes of SMP attribute data, or the 192 of a PMA reply.
std::span<const uint8_t, 64> smp_data(std::span<const uint8_t, kMadSize> mad);
std::span<const uint8_t, kPmaDataSize> pma_data(std::span<const uint8_t, kMadSize> mad);

/// The SMA/PMA status field: 0 = success. Names the common ones.
std::string status_name(uint16_t status);

/// Builds a GetResp for `request` with `data` (tests and fakes answer with it).
MadBytes make_response(std::span<const uint8_t, kMadSize> request, std::span<const uint8_t> data,
                       uint16_t status);

}  // namespace mad
}  // namespace fabscope
