#pragma once
// Decoders for the 64-byte data of subnet management attributes. Pure: bytes
// in, structs out, so they are tested on hex dumps captured from the lab.
// Field layouts are libibmad's (mad_get_field), the reference for every diag.

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "model/fabric.h"

namespace fabscope {

inline constexpr size_t kSmpDataSize = 64;
using SmpData = std::span<const uint8_t, kSmpDataSize>;

/// PortInfo CapabilityMask bits we look at.
inline constexpr uint32_t kCapIsExtendedSpeedsSupported = 1U << 14;
inline constexpr uint32_t kCapIsCapabilityMask2Supported = 1U << 15;
/// PortInfo CapabilityMask2: the port answers PortInfoExtended (0x33).
inline constexpr uint32_t kCap2IsPortInfoExtendedSupported = 1U << 1;

struct NodeInfo {
    uint8_t base_version = 0;
    uint8_t class_version = 0;
    NodeType type = NodeType::CA;
    uint8_t num_ports = 0;
    Guid system_guid = 0;
    Guid node_guid = 0;
    Guid port_guid = 0;
    uint16_t partition_cap = 0;
    uint16_t device_id = 0;
    uint32_t revision = 0;
    uint8_t local_port = 0;
    uint32_t vendor_id = 0;
};

struct SwitchInfo {
    uint16_t linear_fdb_cap = 0;
    uint16_t linear_fdb_top = 0;
    uint16_t mcast_fdb_cap = 0;
    uint8_t default_port = 0;
    uint8_t lifetime = 0;
    bool enhanced_port0 = false;
    uint16_t partition_enforcement_cap = 0;  ///< P_Key entries per external port; 0: none
};

/// Fields of PortInfo beyond what the model's Port keeps.
struct PortInfoExtra {
    uint8_t local_port = 0;
    Lid sm_lid = 0;
    uint8_t link_down_default = 0;
    uint32_t capability_mask2 = 0;
};

/// Decodes NodeInfo; an unknown node type (not 1..3) yields nullopt.
std::optional<NodeInfo> decode_node_info(SmpData d);
/// NodeDescription: up to 64 bytes, NUL-padded; non-printable bytes become '?'.
std::string decode_node_description(SmpData d);
SwitchInfo decode_switch_info(SmpData d);

/// Decodes PortInfo for port `num`. Extended speeds (FDR and up) count only
/// when `ext_cap_mask` (the port's own CapabilityMask, or port 0's for a
/// switch's external port) has IsExtendedSpeedsSupported.
Port decode_port_info(SmpData d, uint8_t num, uint32_t ext_cap_mask);
PortInfoExtra decode_port_info_extra(SmpData d);
uint32_t decode_port_capability_mask(SmpData d);
/// PortInfoExtended (0x33): the port supports FEC modes (CapMask bit 0) and
/// runs an RS-FEC one (FECModeActive 2, RS-FEC, or 4, RS-FEC2), as perfquery
/// decides which PortExtendedSpeedsCounters layout a port answers in.
bool port_info_ext_rs_fec_active(SmpData d);
/// SMInfo; a state beyond Master (4..15, reserved) yields nullopt.
std::optional<SmInfo> decode_sm_info(SmpData d);

/// P_Key entries in one block of a PKeyTable (IBA vol 1, 14.2.5.7).
inline constexpr unsigned kPkeysPerBlock = 32;
/// The block's 32 entries in table order, 0 (unused) included.
std::array<uint16_t, kPkeysPerBlock> decode_pkey_block(SmpData d);

/// SLtoVLMappingTable (0x17): the VL of SL 0..15, four bits each, SL 0 in
/// the high nibble of the first byte.
std::array<uint8_t, 16> decode_sl2vl(SmpData d);

/// MTU code (1..5) to bytes (256..4096); 0 for anything else.
uint16_t mtu_bytes(unsigned code);

/// Parses hex ("00 01 0a ..." with any whitespace, optional 0x) into bytes,
/// for fixtures. Returns false on a malformed string.
bool parse_hex_bytes(std::string_view hex, std::array<uint8_t, kSmpDataSize>& out);

}  // namespace fabscope
