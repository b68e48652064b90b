#pragma once
// Before a cover on RoCE: rank 0 names every rank's address and the UDP
// source ports to trace; every rank traces each port to every other rank
// (no router between two ranks: the pair crosses no lane), and rank 0
// collects the traces by a deadline into MeshRunData::traces, the paths the
// cover is planned from. On InfiniBand no port is asked: the snapshot's
// routes are the paths.

#include <string>
#include <vector>

#include "mesh/run.h"
#include "ranks/protocol.h"

namespace fabscope::perf {

/// The ranks `me` traces among `n` when each traces `k` (0: every other):
/// offsets +-s from `me`, spread over the ranks, so whoever `me` traces
/// traces `me` too (a cover tests each pair both ways) and every rank is
/// traced by as many as it traces. At most k (an odd k rounded up: targets
/// come in pairs), never `me`.
std::vector<int> cover_trace_targets(int me, int n, int k);

/// What one rank's traces may take in its message: past it the rest are
/// left out (and counted), so no rank's message is refused (kMaxMessage,
/// with room for the relay's wrapping).
inline constexpr size_t kMaxTraceBytes = 640 * 1024;

/// One rank's message of traces: an array of {dst, variant, trace} (no
/// trace: no router between), or, where it stopped at kMaxTraceBytes,
/// {"traces": [...], "left_out": ranks not traced}.
std::string rank_traces_message(const MeshRunOptions& o, const std::vector<MeshRank>& ranks, int me,
                                const std::vector<uint16_t>& sports, int targets);

/// Every rank calls it; rank 0's `d` takes the ports asked and the traces
/// that came. Ends by `traces_by` whatever the others do.
void trace_for_cover(RankRun& ranks, const MeshRunOptions& o, MeshRunData& d, MeshDeadline ask_by,
                     MeshDeadline traces_by);

}  // namespace fabscope::perf
