#pragma once
// What a check of credit loops per VL (check/vl_credit_loops.h) reads from a
// live fabric, only where the one-VL check found a loop: the SL of each flow
// that crosses a cyclic component, from the SA (a SubnAdmGet PathRecord by
// SLID and DLID: the SL the SM gives that path, as LASH, DFSSSP and
// torus-2QoS choose it), and the SLtoVLMappingTable (SMP 0x17, modifier
// in << 8 | out) of each switch where such a flow leaves on a cyclic lane.
// Unanswered queries are left out: the check then keeps the one-VL loops;
// the SA is asked for one flow first, and for none more if it does not answer.

#include "check/vl_credit_loops.h"
#include "discover/mad_engine.h"

namespace fabscope {

/// At most this many flows' SLs are asked of the SA in one validate (one
/// SubnAdmGet each); past it the loops stay one-VL and the check says why.
inline constexpr size_t kMaxVlFlows = 65536;

struct VlReadings {
    FlowSls sls;
    Sl2VlTables tables;
    /// The SA gave no SL for the first flow asked: nothing more was asked.
    bool sa_silent = false;
    bool interrupted = false;
};

VlReadings read_vl_inputs(MadTransport& transport, const Clock& clock, const EngineOptions& options,
                          const Fabric& f, const VlNeeds& needs, Lid sm_lid);

}  // namespace fabscope
