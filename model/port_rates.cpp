#include "model/port_rates.h"

#include <algorithm>

namespace fabscope {

RateMap port_rates(const Fabric& f, const CounterReadings& before, const CounterReadings& after,
                   int tick_multiplier) {
    RateMap out;
    for (const auto& [ref, reading] : after) {
        const PortCounters& a = reading;  // the lambda below uses it (no capture of bindings)
        auto it = before.find(ref);
        if (it == before.end()) continue;
        const PortCounters& b = it->second;
        const int64_t ms = a.read_at_ms - b.read_at_ms;
        if (ms <= 0) continue;
        PortRates r;
        r.seconds = static_cast<double>(ms) / 1000.0;
        // The increase of one counter; a counter that went down was cleared in between.
        auto delta = [&](Counter c) -> std::optional<uint64_t> {
            const auto rise = counter_rise(b, a, c);
            if (!rise) return std::nullopt;
            const bool extended = a.extended && b.extended;
            if (const uint64_t max = counter_max(c, extended);
                rise->after == max && max != ~uint64_t{0})
                r.saturated = true;
            r.cleared = r.cleared || rise->cleared;
            return rise->delta;
        };
        // Data counters count 4-octet words.
        if (auto d = delta(Counter::PortXmitData))
            r.xmit_gbps = static_cast<double>(*d) * 32 / r.seconds / 1e9;
        if (auto d = delta(Counter::PortRcvData))
            r.rcv_gbps = static_cast<double>(*d) * 32 / r.seconds / 1e9;
        uint64_t errors = 0;
        for (int i = 0; i < kCounterCount; ++i) {
            auto c = static_cast<Counter>(i);
            if (!is_error_counter(c)) continue;
            if (auto d = delta(c)) errors += *d;
        }
        r.errors = errors;
        r.errors_per_s = static_cast<double>(errors) / r.seconds;
        const Port* port = f.port(ref);
        if (auto d = delta(Counter::PortXmitWait); d && port && port->speed_active) {
            r.xmit_wait = std::min(
                1.0, static_cast<double>(*d) *
                         xmit_wait_tick_seconds(
                             *port->speed_active,
                             xmit_wait_tick_multiplier(f.node(ref.node), tick_multiplier)) /
                         r.seconds);
        }
        out[ref] = r;
    }
    return out;
}

}  // namespace fabscope
