#include "model/counters.h"

namespace fabscope {
namespace {

struct CounterInfo {
    std::string_view name;
    int bits;  // as in PortCounters (32 for data counters there)
    bool error;
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

bool is_error_counter(Counter c) {
    return kInfo[static_cast<size_t>(c)].error;
}

std::optional<CounterRise> counter_rise(const PortCounters& before, const PortCounters& after,
                                        Counter c) {
    const auto b = before.get(c);
    const auto a = after.get(c);
    if (!b || !a) return std::nullopt;
    return counter_rise(*b, *a);
}

CounterRise counter_rise(uint64_t before, uint64_t after) {
    const bool cleared = after < before;
    return CounterRise{before, after, cleared ? after : after - before, cleared};
}

}  // namespace fabscope
