#pragma once
// The forwarding tables' analysis of a live fabric: on one VL first
// (check/routing_checks.h); where that finds a credit loop, checked again
// per VL with the SLs of the loops' flows (from the SA) and the switches'
// SL-to-VL tables, read now and only as many as the loops need
// (check/vl_credit_loops.h, discover/vl_inputs.h). validate and
// `route --balance` share it.

#include "check/routing_checks.h"
#include "discover/live_session.h"

namespace fabscope {

RoutingAnalysis analyse_routing_live(LiveSession& session, const Fabric& fabric,
                                     const StopToken* stop = nullptr);

}  // namespace fabscope
