#include "check/live/routing_live.h"

#include <fmt/format.h>

#include "discover/vl_inputs.h"

namespace fabscope {

RoutingAnalysis analyse_routing_live(LiveSession& session, const Fabric& fabric,
                                     const StopToken* stop) {
    RoutingAnalysis a = analyse_routing(fabric);
    if (a.loops.empty()) return a;
    const VlNeeds needs = vl_needs(fabric, a, kMaxVlFlows);
    if (needs.too_many) {
        a.vl_basis = fmt::format(
            "one VL assumed: more than {} flows cross the loops, the most whose SL fabscope asks "
            "the SA for",
            kMaxVlFlows);
        return a;
    }
    if (session.local().sm_lid == 0) {
        a.vl_basis = "one VL assumed: no SM LID on the local port to ask the SA for the SLs";
        return a;
    }
    const VlReadings r =
        read_vl_inputs(session.transport(), session.clock(), session.engine_options(stop), fabric,
                       needs, session.local().sm_lid);
    if (r.sa_silent) {
        a.vl_basis = fmt::format(
            "one VL assumed: the SA at LID {} gave no PathRecord for the first flow asked",
            session.local().sm_lid);
        return a;
    }
    check_loops_per_vl(a, needs, r.sls, r.tables);
    return a;
}

}  // namespace fabscope
