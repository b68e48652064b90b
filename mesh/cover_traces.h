#pragma once
// Before a cover on RoCE: rank 0 names every rank's address and the UDP
// source ports to trace; every rank traces each port to every other rank
// (no router between two ranks: the pair crosses no lane), and rank 0
// collects the traces by a deadline into MeshRunData::traces, the paths the
// cover is planned from. On InfiniBand no port is asked: the snapshot's
// routes are the paths.

#include "mesh/run.h"
#include "ranks/protocol.h"

namespace fabscope::perf {

/// Every rank calls it; rank 0's `d` takes the ports asked and the traces
/// that came. Ends by `traces_by` whatever the others do.
void trace_for_cover(RankRun& ranks, const MeshRunOptions& o, MeshRunData& d, MeshDeadline ask_by,
                     MeshDeadline traces_by);

}  // namespace fabscope::perf
