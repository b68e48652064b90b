#pragma once
// A second reading of port counters, for rates: PortCounters and
// PortCountersExtended of the given ports only (no topology), on the MAD
// engine. Ports that do not answer are listed in `failed`: a caller turns
// them into findings (check_unanswered), never drops them silently.

#include <vector>

#include "discover/mad_engine.h"
#include "model/counter_checks.h"
#include "model/fabric.h"

namespace fabscope {

struct CounterRead {
    CounterReadings readings;
    std::vector<PortRef> failed;
    MadStats stats;
    bool interrupted = false;  ///< options.stop stopped it: some ports were not read
};

/// Reads every port of `f` that has counters in `f` (that is, was read by
/// the sweep), by the LIDs the snapshot holds.
CounterRead read_counters(MadTransport& transport, const Clock& clock, const Fabric& f,
                          const EngineOptions& options);

}  // namespace fabscope
