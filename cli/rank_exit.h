#pragma once
// How a rank of a launcher-run command (`mesh run`, its incast pattern)
// ends: rank 0 reports the run; every other rank exits clean unless it lost
// rank 0, which only it can say.

#include "ranks/protocol.h"

namespace fabscope::cli {

/// Rank `rank` (not 0): 0 when it took part, was interrupted, or rank 0 will
/// say why it did not; 3, with the reason on stderr, when rank 0 was lost.
int non_root_exit(const perf::RankOutcome& out, int rank);

}  // namespace fabscope::cli
