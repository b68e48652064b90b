#include "discover/pma_decode.h"

#include <infiniband/mad.h>

#include <algorithm>

namespace fabscope {
namespace {

uint64_t field(PmaData d, enum MAD_FIELDS f) {
    return mad_get_field(const_cast<uint8_t*>(d.data()), 0, f);  // NOLINT: libibmad only reads
}
uint64_t field64(PmaData d, enum MAD_FIELDS f) {
    return mad_get_field64(const_cast<uint8_t*>(d.data()), 0, f);  // NOLINT
}

}  // namespace

PortCounters decode_port_counters(PmaData d) {
    PortCounters pc;
    pc.set(Counter::SymbolErrorCounter, field(d, IB_PC_ERR_SYM_F));
    pc.set(Counter::LinkErrorRecoveryCounter, field(d, IB_PC_LINK_RECOVERS_F));
    pc.set(Counter::LinkDownedCounter, field(d, IB_PC_LINK_DOWNED_F));
    pc.set(Counter::PortRcvErrors, field(d, IB_PC_ERR_RCV_F));
    pc.set(Counter::PortRcvRemotePhysicalErrors, field(d, IB_PC_ERR_PHYSRCV_F));
    pc.set(Counter::PortRcvSwitchRelayErrors, field(d, IB_PC_ERR_SWITCH_REL_F));
    pc.set(Counter::PortXmitDiscards, field(d, IB_PC_XMT_DISCARDS_F));
    pc.set(Counter::PortXmitConstraintErrors, field(d, IB_PC_ERR_XMTCONSTR_F));
    pc.set(Counter::PortRcvConstraintErrors, field(d, IB_PC_ERR_RCVCONSTR_F));
    pc.set(Counter::LocalLinkIntegrityErrors, field(d, IB_PC_ERR_LOCALINTEG_F));
    pc.set(Counter::ExcessiveBufferOverrunErrors, field(d, IB_PC_ERR_EXCESS_OVR_F));
    pc.set(Counter::VL15Dropped, field(d, IB_PC_VL15_DROPPED_F));
    pc.set(Counter::PortXmitWait, field(d, IB_PC_XMT_WAIT_F));
    pc.set(Counter::PortXmitData, field(d, IB_PC_XMT_BYTES_F));
    pc.set(Counter::PortRcvData, field(d, IB_PC_RCV_BYTES_F));
    pc.set(Counter::PortXmitPkts, field(d, IB_PC_XMT_PKTS_F));
    pc.set(Counter::PortRcvPkts, field(d, IB_PC_RCV_PKTS_F));
    return pc;
}

void merge_port_counters_extended(PortCounters& pc, PmaData d) {
    pc.extended = true;
    pc.set(Counter::PortXmitData, field64(d, IB_PC_EXT_XMT_BYTES_F));
    pc.set(Counter::PortRcvData, field64(d, IB_PC_EXT_RCV_BYTES_F));
    pc.set(Counter::PortXmitPkts, field64(d, IB_PC_EXT_XMT_PKTS_F));
    pc.set(Counter::PortRcvPkts, field64(d, IB_PC_EXT_RCV_PKTS_F));
    pc.set(Counter::PortUnicastXmitPkts, field64(d, IB_PC_EXT_XMT_UPKTS_F));
    pc.set(Counter::PortUnicastRcvPkts, field64(d, IB_PC_EXT_RCV_UPKTS_F));
    pc.set(Counter::PortMulticastXmitPkts, field64(d, IB_PC_EXT_XMT_MPKTS_F));
    pc.set(Counter::PortMulticastRcvPkts, field64(d, IB_PC_EXT_RCV_MPKTS_F));
}

void merge_rcv_error_details(PortCounters& pc, PmaData d) {
    pc.set(Counter::PortLocalPhysicalErrors, field(d, IB_PC_RCV_LOCAL_PHY_ERR_F));
    pc.set(Counter::PortMalformedPktErrors, field(d, IB_PC_RCV_MALFORMED_PKT_ERR_F));
    pc.set(Counter::PortBufferOverrunErrors, field(d, IB_PC_RCV_BUF_OVR_ERR_F));
    pc.set(Counter::PortDLIDMappingErrors, field(d, IB_PC_RCV_DLID_MAP_ERR_F));
    pc.set(Counter::PortVLMappingErrors, field(d, IB_PC_RCV_VL_MAP_ERR_F));
    pc.set(Counter::PortLoopingErrors, field(d, IB_PC_RCV_LOOPING_ERR_F));
}

void merge_xmit_discard_details(PortCounters& pc, PmaData d) {
    pc.set(Counter::PortInactiveDiscards, field(d, IB_PC_XMT_INACT_DISC_F));
    pc.set(Counter::PortNeighborMTUDiscards, field(d, IB_PC_XMT_NEIGH_MTU_DISC_F));
    pc.set(Counter::PortSwLifetimeLimitDiscards, field(d, IB_PC_XMT_SW_LIFE_DISC_F));
    pc.set(Counter::PortSwHOQLifetimeLimitDiscards, field(d, IB_PC_XMT_SW_HOL_DISC_F));
}

void merge_ext_speeds_counters(PortCounters& pc, PmaData d, FecLayout layout) {
    if (layout == FecLayout::None) return;
    pc.fec = layout;
    pc.set(Counter::SyncHeaderErrorCounter, field(d, IB_PESC_SYNC_HDR_ERR_CTR_F));
    pc.set(Counter::UnknownBlockCounter, field(d, IB_PESC_UNK_BLOCK_CTR_F));
    if (layout == FecLayout::RsFec) {
        pc.set(Counter::PortFECCorrectableBlockCtr, field(d, IB_PESC_PORT_FEC_CORR_BLOCK_CTR_F));
        pc.set(Counter::PortFECUncorrectableBlockCtr,
               field(d, IB_PESC_PORT_FEC_UNCORR_BLOCK_CTR_F));
        pc.set(Counter::PortFECCorrectedSymbolCtr, field(d, IB_PESC_PORT_FEC_CORR_SYMBOL_CTR_F));
        return;
    }
    constexpr int kLanes = 12;
    uint64_t corrected = 0;
    uint64_t uncorrected = 0;
    for (int lane = 0; lane < kLanes; ++lane) {
        corrected += field(d, static_cast<MAD_FIELDS>(IB_PESC_FEC_CORR_BLOCK_CTR_LANE0_F + lane));
        uncorrected +=
            field(d, static_cast<MAD_FIELDS>(IB_PESC_FEC_UNCORR_BLOCK_CTR_LANE0_F + lane));
    }
    const uint64_t max = counter_max(Counter::PortFECCorrectableBlockCtr, false);
    pc.set(Counter::PortFECCorrectableBlockCtr, std::min(corrected, max));
    pc.set(Counter::PortFECUncorrectableBlockCtr, std::min(uncorrected, max));
}

uint16_t pma_class_capability_mask(PmaData d) {
    return static_cast<uint16_t>(field(d, IB_CPI_CAPMASK_F));
}

VlXmitWait decode_vl_xmit_wait(PmaData d) {
    VlXmitWait w{};
    for (int vl = 0; vl < kVlCount; ++vl)
        w[static_cast<size_t>(vl)] =
            field(d, static_cast<MAD_FIELDS>(IB_PC_PORT_VL_XMIT_WAIT0_F + vl));
    return w;
}

uint8_t samples_control_tick(PmaData d) {
    return static_cast<uint8_t>(field(d, IB_PSC_TICK_F));
}

uint8_t pma_port_select(PmaData d) {
    return d[1];
}

}  // namespace fabscope
