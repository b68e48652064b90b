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

#include "model/counter_readings.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "model/thresholds.h"

namespace fabscope {

std::vector<Finding> check_counter_rates(const Fabric& f, const CounterReadings& before,
                                         const CounterReadings& after, const Thresholds& t);

/// Counters already at their maximum in one reading (no interval needed).
std::vector<Finding> check_saturated(const Fabric& f, const CounterReadings& readings);

/// Ports read the first time and missing from the second reading (they did
/// not answer it): their rates are unknown, which is a finding, one per node
/// ("counters_unanswered"), never a port silently left out of the rates.
std::vector<Finding> check_unanswered(const Fabric& f, const CounterReadings& before,
                                      const CounterReadings& after);

}  // namespace fabscope
