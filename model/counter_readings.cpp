#include "model/counter_readings.h"

#include "model/link_rate.h"

namespace fabscope {

CounterReadings readings_of(const Fabric& f) {
    CounterReadings out;
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            if (p.counters) out[PortRef{n.guid, p.num}] = *p.counters;
        }
    }
    return out;
}

double xmit_wait_tick_seconds(Speed speed, int tick_multiplier) {
    // The IBA (vol. 1, PortCounters:PortXmitWait) counts "ticks" and leaves
    // their length to the implementation (PortSamplesControl:Tick). The
    // convention here, documented in the user guide: a tick is a multiple of
    // the time a lane takes to carry one byte at the active speed (at SDR the
    // IBA's 4 ns symbol time), the multiple set by xmit_wait.tick_multiplier.
    // validate, the TUI's rates and `fabscope congestion` all convert here.
    return tick_multiplier * 8.0 / (lane_data_gbps(speed) * 1e9);
}

int xmit_wait_tick_multiplier(const Node* node, int fallback) {
    return node && node->pma_tick ? *node->pma_tick + 1 : fallback;
}

double mean_interval_s(const CounterReadings& before, const CounterReadings& after) {
    int64_t sum = 0;
    size_t n = 0;
    for (const auto& [ref, pc] : after) {
        auto b = before.find(ref);
        if (b == before.end()) continue;
        sum += pc.read_at_ms - b->second.read_at_ms;
        ++n;
    }
    return n ? static_cast<double>(sum) / static_cast<double>(n) / 1000.0 : 0;
}

}  // namespace fabscope
