#pragma once
// `mesh run --pattern ring`: a ring all-reduce as a job runs it, by every
// rank of a launcher (mpirun, srun). Rank 0 puts the ranks in a ring as a
// collective library would (hosts under one leaf next to each other, when
// --load's routes tell the leaves; else in rank order, as NCCL's rings cross
// nodes), and each rank connects an RC QP to the next rank and one from the
// previous. Then, per message size, every rank runs the 2(n-1) steps of the
// all-reduce (reduce-scatter, then all-gather) `warmup` + `iterations` times:
// each step WRITEs a chunk (size / n) to the next rank and waits for its
// WRITE's completion and for the previous rank's chunk (mesh/results/ring.h
// has the figures: time, algbw, busbw, each edge's step times).
//
//   connect: the ring's edges pair up in two or three colours, so no rank
//            waits on two partners at once; receives posted; report
//   size k:  the all-reduces; every rank reports its times (and after the
//            last size the sender of each edge traces the edge's path)
//
// A rank whose neighbour stops (dies, hangs) sees its ring stall and says
// so within the step timeout; rank 0 names the ranks gone and ends the run
// with what was measured. The run's data is a mesh run's (mesh/run_data.h):
// the edges are its flows, localized as a mesh run's are, and the figures
// are in MeshRunData::ring.

#include <cstdint>
#include <string>
#include <vector>

#include "mesh/run.h"

namespace fabscope::perf {

/// Runs this rank's part of `o.ring`; returns when the run is over for it.
/// Never throws. Takes from `o` besides the device, port, peer options, step
/// timeout, slow ratio, host, routes (rank 0), trace_flow,
/// read_switch_counters, on_progress, cannot_start and coordinator_only (rank
/// 0 of agents: in no edge).
MeshRunOutcome run_ring(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                        const StopToken& stop);

}  // namespace fabscope::perf
