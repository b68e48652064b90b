#include "mesh/run_pattern.h"

#include "mesh/ring_run.h"

namespace fabscope::perf {

MeshRunOutcome run_pattern(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                           const StopToken& stop) {
    return o.pattern == "ring" ? run_ring(comm, open, o, stop) : run_mesh(comm, open, o, stop);
}

}  // namespace fabscope::perf
