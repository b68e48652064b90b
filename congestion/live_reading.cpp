#include "congestion/live_reading.h"

namespace fabscope {

PmaRead read_again(LiveSession& session, const Fabric& fabric, bool per_vl, const StopToken& stop) {
    PmaSourceOptions po;
    po.engine = session.engine_options(&stop);
    po.per_vl = per_vl;
    return PmaCounterSource(session.transport(), session.clock(), fabric, po).read_ports();
}

}  // namespace fabscope
