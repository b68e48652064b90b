#include "cli/rank_exit.h"

#include <cstdio>

#include "util/exit_status.h"

namespace fabscope::cli {

int non_root_exit(const perf::RankOutcome& out, int rank) {
    if (out.error.empty() || out.error == "interrupted") return kExitClean;
    // Not taking part (no device, an aborted run) is rank 0's to report.
    std::fprintf(stderr, "fabscope: mesh run (rank %d): %s\n", rank, out.error.c_str());
    return out.lost_root ? kExitCannotRun : kExitClean;
}

}  // namespace fabscope::cli
