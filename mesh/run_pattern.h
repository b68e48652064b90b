#pragma once
// The one dispatch of a run's pattern to the code that runs it, for every
// launcher (mpirun, srun, the agents): the ring all-reduce
// (mesh/ring_run.h), else the rounds of pairs (mesh/run.h).

#include "mesh/run.h"

namespace fabscope::perf {

/// Runs this rank's part of `o.pattern`; returns when the run is over for
/// it. Never throws.
MeshRunOutcome run_pattern(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                           const StopToken& stop);

}  // namespace fabscope::perf
