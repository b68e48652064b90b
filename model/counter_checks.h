#pragma once
// Port counters as rates between two readings taken an interval apart:
//  - counter_rising: an error counter rose faster than its threshold allows;
//  - counter_saturated: an error counter stands at its maximum, so whatever
//    happens now cannot be seen (PortCounters stop, they do not wrap);
//  - xmit_wait: the port spent a share of the interval with data to send and
//    no credits to send it (PortXmitWait, converted with the link's speed).
// A counter that went down was cleared during the interval; its delta is
// then at least its new value, and the finding says so.

#include <map>
#include <vector>

#include "model/counters.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "model/thresholds.h"

namespace fabscope {

using CounterReadings = std::map<PortRef, PortCounters>;

/// The counters a snapshot holds, by port.
CounterReadings readings_of(const Fabric& f);

std::vector<Finding> check_counter_rates(const Fabric& f, const CounterReadings& before,
                                         const CounterReadings& after, const Thresholds& t);

/// The mean time between the two readings of the ports both hold, in
/// seconds; 0 when they share no port.
double mean_interval_s(const CounterReadings& before, const CounterReadings& after);

/// Counters already at their maximum in one reading (no interval needed).
std::vector<Finding> check_saturated(const Fabric& f, const CounterReadings& readings);

/// Ports read the first time and missing from the second reading (they did
/// not answer it): their rates are unknown, which is a finding, one per node
/// ("counters_unanswered"), never a port silently left out of the rates.
std::vector<Finding> check_unanswered(const Fabric& f, const CounterReadings& before,
                                      const CounterReadings& after);

/// Seconds one PortXmitWait tick lasts on a port running `speed`.
double xmit_wait_tick_seconds(Speed speed, int tick_multiplier);
/// The tick multiplier of a node's ports: its PMA's PortSamplesControl.Tick
/// + 1 where a sweep read it (a tick of 4 ns at SDR, as qib's PMA reports
/// Tick 0, 1 and 3 at SDR, DDR and QDR), else `fallback` (the thresholds'
/// xmit_wait.tick_multiplier).
int xmit_wait_tick_multiplier(const Node* node, int fallback);

}  // namespace fabscope
