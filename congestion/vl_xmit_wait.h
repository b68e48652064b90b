#pragma once
// PortXmitWait per virtual lane (PortVLXmitWaitCounters, PMA attribute 0x1C):
// which lanes of a waiting port waited, so a tree on one VL (one service
// level's traffic) is told from a port starved on every lane. Optional in
// the IBA: a port that does not report it is "per-VL not supported", no
// error. Rises by the one rule (counter_rise). Pure.

#include <map>
#include <vector>

#include "model/counters.h"
#include "model/fabric.h"

namespace fabscope {

/// The per-VL counters of two readings, and the ports that did not give them.
struct VlWaitReadings {
    std::map<PortRef, VlXmitWait> before;
    std::map<PortRef, VlXmitWait> after;
    std::vector<PortRef> not_supported;  ///< in either reading
};

struct VlRise {
    int vl = 0;
    CounterRise rise;
};

/// The lanes whose PortVLXmitWait rose (or was cleared), lowest VL first.
std::vector<VlRise> vl_wait_rises(const VlXmitWait& before, const VlXmitWait& after);

}  // namespace fabscope
