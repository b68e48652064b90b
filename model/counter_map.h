#pragma once
// Counters by name, as a device or a host reports them (sysfs counters and
// hw_counters, ethtool statistics, /proc/net/netstat), and what two readings
// of them say. Pure: the readers live where the hardware does (congestion/).

#include <cstdint>
#include <map>
#include <string>

namespace fabscope {

using CounterMap = std::map<std::string, uint64_t>;

/// after - before for every counter in both; a counter that went down was
/// reset and counts from zero.
CounterMap counter_deltas(const CounterMap& before, const CounterMap& after);

/// Only the non-zero entries.
CounterMap nonzero(const CounterMap& m);

}  // namespace fabscope
