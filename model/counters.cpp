#include "model/counters.h"

namespace fabscope {
namespace {

struct CounterInfo {
    std::string_view name;
    int bits;  // as in PortCounters (32 for data counters there)
    bool error;
    std::string_view meaning = {};  // what a rise usually points at
};

constexpr std::array<CounterInfo, kCounterCount> kInfo{{
    {"SymbolErrorCounter", 16, true},
    {"LinkErrorRecoveryCounter", 8, true},
    {"LinkDownedCounter", 8, true},
    {"PortRcvErrors", 16, true},
    {"PortRcvRemotePhysicalErrors", 16, true},
    {"PortRcvSwitchRelayErrors", 16, true},
    {"PortXmitDiscards", 16, true},
    {"PortXmitConstraintErrors", 8, true},
    {"PortRcvConstraintErrors", 8, true},
    {"LocalLinkIntegrityErrors", 4, true},
    {"ExcessiveBufferOverrunErrors", 4, true},
    {"VL15Dropped", 16, true},
    {"PortXmitWait", 32, false},
    {"PortXmitData", 32, false},
    {"PortRcvData", 32, false},
    {"PortXmitPkts", 32, false},
    {"PortRcvPkts", 32, false},
    {"PortUnicastXmitPkts", 64, false},
    {"PortUnicastRcvPkts", 64, false},
    {"PortMulticastXmitPkts", 64, false},
    {"PortMulticastRcvPkts", 64, false},
    {"PortLocalPhysicalErrors", 16, true,
     "packets that arrived corrupted (CRC, length): the cable, its module or a port at either "
     "end"},
    {"PortMalformedPktErrors", 16, true,
     "packets with invalid headers: the sending port's firmware, or corruption on the way"},
    {"PortBufferOverrunErrors", 16, true,
     "packets that found no receive buffer: the ends disagree on flow-control credits (VL "
     "buffer configuration)"},
    {"PortDLIDMappingErrors", 16, true,
     "packets to a LID this switch has no route for: the forwarding tables miss a LID in use "
     "(an SM that has not finished, or a stale LID)"},
    {"PortVLMappingErrors", 16, true,
     "packets whose SL maps to no usable VL: the SL-to-VL tables (QoS configuration)"},
    {"PortLoopingErrors", 16, true,
     "packets routed back out of the port they came in on: a loop in the forwarding tables"},
    {"PortInactiveDiscards", 16, true,
     "packets dropped because the port was not active: routes toward a link that is down"},
    {"PortNeighborMTUDiscards", 16, true,
     "packets larger than the neighbour's MTU: an MTU mismatch between the link's ends or along "
     "the path"},
    {"PortSwLifetimeLimitDiscards", 16, true,
     "packets that outlived the switch lifetime limit: congestion downstream"},
    {"PortSwHOQLifetimeLimitDiscards", 16, true,
     "packets dropped at the head of the queue after waiting for credits: a stalled receiver "
     "downstream (or a credit loop deadlock being broken)"},
    {"SyncHeaderErrorCounter", 16, true,
     "blocks received with an invalid sync header: the lanes lost block lock (the cable, its "
     "module or a port at either end)"},
    {"UnknownBlockCounter", 16, true,
     "blocks received with an unknown block type: corruption the coding layer caught (the cable, "
     "its module or a port at either end)"},
    {"PortFECCorrectableBlockCtr", 32, false},
    {"PortFECUncorrectableBlockCtr", 32, true,
     "blocks the forward error correction could not repair: data lost on the cable (its module "
     "or a port at either end), packets dropped as PortRcvErrors"},
    {"PortFECCorrectedSymbolCtr", 32, false},
}};

}  // namespace

std::string_view name(Counter c) {
    return kInfo[static_cast<size_t>(c)].name;
}

std::optional<Counter> parse_counter(std::string_view s) {
    for (size_t i = 0; i < kInfo.size(); ++i) {
        if (kInfo[i].name == s) return static_cast<Counter>(i);
    }
    return std::nullopt;
}

int counter_bits(Counter c, bool extended) {
    bool data = c >= Counter::PortXmitData && c <= Counter::PortRcvPkts;
    return data && extended ? 64 : kInfo[static_cast<size_t>(c)].bits;
}

uint64_t counter_max(Counter c, bool extended) {
    const int bits = counter_bits(c, extended);
    return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

bool is_fec_counter(Counter c) {
    return c >= Counter::SyncHeaderErrorCounter && c <= Counter::PortFECCorrectedSymbolCtr;
}

std::string_view name(FecLayout l) {
    switch (l) {
        case FecLayout::None: return "none";
        case FecLayout::Original: return "original";
        case FecLayout::RsFec: return "rs-fec";
    }
    return "none";
}

std::optional<FecLayout> parse_fec_layout(std::string_view s) {
    for (FecLayout l : {FecLayout::None, FecLayout::Original, FecLayout::RsFec}) {
        if (name(l) == s) return l;
    }
    return std::nullopt;
}

bool is_error_counter(Counter c) {
    return kInfo[static_cast<size_t>(c)].error;
}

std::optional<Counter> detail_of(Counter c) {
    if (c >= Counter::PortLocalPhysicalErrors && c <= Counter::PortLoopingErrors)
        return Counter::PortRcvErrors;
    if (c >= Counter::PortInactiveDiscards && c <= Counter::PortSwHOQLifetimeLimitDiscards)
        return Counter::PortXmitDiscards;
    return std::nullopt;
}

std::string_view counter_meaning(Counter c) {
    return kInfo[static_cast<size_t>(c)].meaning;
}

namespace {

/// A counter as read, or, for a detail counter that was not asked for
/// because its total stood at zero, the zero that total implies.
std::optional<uint64_t> value_or_implied(const PortCounters& pc, Counter c) {
    if (auto v = pc.get(c)) return v;
    const auto total = detail_of(c);
    if (total && pc.get(*total) == uint64_t{0}) return 0;
    return std::nullopt;
}

}  // namespace

std::optional<CounterRise> counter_rise(const PortCounters& before, const PortCounters& after,
                                        Counter c) {
    // Read in two layouts (a retrain into another FEC mode), the FEC
    // counters are not the same counters: no rise to tell.
    if (is_fec_counter(c) && before.fec != after.fec) return std::nullopt;
    const auto b = value_or_implied(before, c);
    const auto a = value_or_implied(after, c);
    if (!b || !a) return std::nullopt;
    return counter_rise(*b, *a);
}

CounterRise counter_rise(uint64_t before, uint64_t after) {
    const bool cleared = after < before;
    return CounterRise{before, after, cleared ? after : after - before, cleared};
}

}  // namespace fabscope
