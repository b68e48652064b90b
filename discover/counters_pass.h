#pragma once
// The third pass of a sweep: PortCounters and PortCountersExtended of every
// port whose link is up, by LID-routed PMA Gets (the PMA answers nothing
// else), so only ports with a LID (an SM has run) are read. The extended
// answer's 64-bit data and packet counters win over the 32-bit ones.

#include "discover/sweep_context.h"

namespace fabscope {

void counters_pass(SweepContext& ctx);

}  // namespace fabscope
