#pragma once
// The subnet manager pass of a sweep: SMInfo from every port whose
// CapabilityMask claims IsSM (a switch's port 0, a CA's port), and, when
// asked, the P_Key tables of the CA ports and of the switch ports facing
// them (switches that enforce partitions). And a later reading of SMInfo
// alone, LID-routed, for what moved over an interval (ActCount).

#include <map>

#include "discover/mad_engine.h"
#include "discover/sweep_context.h"

namespace fabscope {

void sm_pass(SweepContext& ctx);

/// SMInfo again from every port of `f` that answered it in the sweep, by its
/// LID. A port missing from the result did not answer this time.
std::map<PortRef, SmInfo> read_sm_again(MadTransport& transport, const Clock& clock,
                                        const EngineOptions& options, const Fabric& f);

}  // namespace fabscope
