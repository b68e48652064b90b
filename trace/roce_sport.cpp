#include "trace/roce_sport.h"

namespace fabscope::perf {
namespace {

constexpr uint32_t kFlowLabelMask = 0xFFFFF;  // IB_GRH_FLOWLABEL_MASK
constexpr uint32_t kSportMin = 0xC000;        // IB_ROCE_UDP_ENCAP_VALID_PORT_MIN

}  // namespace

uint16_t rxe_udp_sport(uint32_t local_qpn, uint32_t remote_qpn, uint32_t flow_label) {
    uint32_t fl = flow_label & kFlowLabelMask;
    if (fl == 0) {
        // rdma_calc_flow_label
        uint64_t v = static_cast<uint64_t>(local_qpn) * remote_qpn;
        v ^= v >> 20;
        v ^= v >> 40;
        fl = static_cast<uint32_t>(v & kFlowLabelMask);
    }
    // rdma_flow_label_to_udp_sport
    uint32_t low = fl & 0x03FFF;
    uint32_t high = fl & 0xFC000;
    low ^= high >> 14;
    return static_cast<uint16_t>(low | kSportMin);
}

std::vector<uint16_t> spread_udp_sports(int k) {
    std::vector<uint16_t> out;
    if (k <= 0) return out;
    const uint32_t range = 0x10000 - kSportMin;
    for (int i = 0; i < k; ++i) {
        auto step = static_cast<uint32_t>(i) * range / static_cast<uint32_t>(k);
        out.push_back(static_cast<uint16_t>(kSportMin + 1 + step));
    }
    return out;
}

}  // namespace fabscope::perf
