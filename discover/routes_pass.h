#pragma once
// The second pass of a sweep: every switch's linear forwarding table, read
// block by block (64 LIDs a block) LID-routed where the switch has a LID,
// and again by directed route where the LID route loses MADs. A switch with
// LinearFDBTop 0 has no unicast routes programmed (no SM yet): nothing to read.

#include "discover/sweep_context.h"

namespace fabscope {

void routes_pass(SweepContext& ctx);

}  // namespace fabscope
