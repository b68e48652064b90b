#pragma once
// Port counters turned into rates between two readings: traffic in Gb/s,
// error counters per second, and the share of the time the port waited to
// transmit. What the TUI's tables and sparklines show; the checks with
// thresholds are in counter_checks.h.

#include <map>

#include "model/counter_readings.h"

namespace fabscope {

struct PortRates {
    double seconds = 0;       ///< between the two readings
    double xmit_gbps = 0;     ///< PortXmitData
    double rcv_gbps = 0;      ///< PortRcvData
    double errors_per_s = 0;  ///< every error counter together
    uint64_t errors = 0;      ///< their increments over the interval
    /// PortXmitWait as a share of the interval (0..1); needs the link's speed.
    std::optional<double> xmit_wait;
    /// A counter went down (cleared) or stands at its maximum (saturated):
    /// its rate is a lower bound.
    bool cleared = false;
    bool saturated = false;
};

using RateMap = std::map<PortRef, PortRates>;

/// Rates of every port read in both `before` and `after` with time between
/// them. `f` gives each port's speed for PortXmitWait.
RateMap port_rates(const Fabric& f, const CounterReadings& before, const CounterReadings& after,
                   int tick_multiplier = 1);

}  // namespace fabscope
