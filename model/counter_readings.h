#pragma once
// Port counters by port, as one reading of a fabric holds them, and what
// every reader of two readings needs: the time between them, and how long a
// PortXmitWait tick lasts.

#include <map>

#include "model/counters.h"
#include "model/fabric.h"

namespace fabscope {

using CounterReadings = std::map<PortRef, PortCounters>;

/// The counters a snapshot holds, by port.
CounterReadings readings_of(const Fabric& f);

/// The mean time between the two readings of the ports both hold, in
/// seconds; 0 when they share no port.
double mean_interval_s(const CounterReadings& before, const CounterReadings& after);

/// Seconds one PortXmitWait tick lasts on a port running `speed`.
double xmit_wait_tick_seconds(Speed speed, int tick_multiplier);
/// The tick multiplier of a node's ports: its PMA's PortSamplesControl.Tick
/// + 1 where a sweep read it (a tick of 4 ns at SDR, as qib's PMA reports
/// Tick 0, 1 and 3 at SDR, DDR and QDR), else `fallback` (the thresholds'
/// xmit_wait.tick_multiplier).
int xmit_wait_tick_multiplier(const Node* node, int fallback);

}  // namespace fabscope
