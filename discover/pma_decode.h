#pragma once
// Decoders for performance management replies: PortCounters (attribute
// 0x12), PortCountersExtended (0x1D), PortVLXmitWaitCounters (0x1C),
// PortRcvErrorDetails (0x15), PortXmitDiscardDetails (0x16),
// PortExtendedSpeedsCounters (0x1F, both layouts), the Tick of
// PortSamplesControl (0x10) and the PMA's ClassPortInfo CapabilityMask.
// Pure; field layouts are libibmad's.

#include <cstdint>
#include <span>

#include "model/counters.h"

namespace fabscope {

using PmaData = std::span<const uint8_t, 192>;

/// The counters of a PortCounters reply (32-bit data counters).
PortCounters decode_port_counters(PmaData d);
/// Overlays a PortCountersExtended reply: 64-bit data and packet counters,
/// and the unicast/multicast packet counters.
void merge_port_counters_extended(PortCounters& pc, PmaData d);
/// Overlays a PortRcvErrorDetails reply: the six causes of PortRcvErrors.
void merge_rcv_error_details(PortCounters& pc, PmaData d);
/// Overlays a PortXmitDiscardDetails reply: the four causes of PortXmitDiscards.
void merge_xmit_discard_details(PortCounters& pc, PmaData d);
/// Overlays a PortExtendedSpeedsCounters reply read in `layout` (not None):
/// SyncHeaderErrorCounter and UnknownBlockCounter; with RS-FEC the port's
/// FEC block and corrected-symbol counters; in the original layout the FEC
/// block counters summed over the lanes (saturating at 32 bits, as each lane
/// does). Sets pc.fec.
void merge_ext_speeds_counters(PortCounters& pc, PmaData d, FecLayout layout);
/// PMA ClassPortInfo CapabilityMask bits we look at.
inline constexpr uint16_t kPmaCapRsFecCounters = 1U << 14;  ///< IsPMRSFECCountersSupported
/// The CapabilityMask of a PMA's ClassPortInfo reply (bytes 2-3).
uint16_t pma_class_capability_mask(PmaData d);
/// PortVLXmitWaitCounters (0x1C): PortVLXmitWait of VL0..VL15, 16 bits each.
VlXmitWait decode_vl_xmit_wait(PmaData d);
/// PortSamplesControl (0x10): its Tick (byte 2 of the data).
uint8_t samples_control_tick(PmaData d);
/// PortSelect echoed in a reply (byte 1 of the data).
uint8_t pma_port_select(PmaData d);

}  // namespace fabscope
