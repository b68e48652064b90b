#pragma once
// The second reading of a live InfiniBand fabric's counters, as `validate`,
// `congestion` and `mesh run --load` take it: after a sweep through the
// local port (whose counters are the first reading), every port read again
// through the same port by PMA Gets.

#include "congestion/pma_counter_source.h"
#include "discover/live_session.h"
#include "util/interrupt.h"

namespace fabscope {

/// Every port of `fabric` with counters, read again through the session's
/// port (`per_vl`: with PortVLXmitWaitCounters); stopped by `stop`.
PmaRead read_again(LiveSession& session, const Fabric& fabric, bool per_vl, const StopToken& stop);

}  // namespace fabscope
