#pragma once
// A fabric-wide test run by every rank of a launcher (mpirun, srun): each
// rank opens its device, rank 0 plans the rounds, and round by round the
// paired ranks connect an RC QP and measure each direction in turn, while
// rank 0 collects the results after every step and tells the others to go on.
//
//   step:  pair up (exchange endpoint info, connect, "ready")   [phase 0 only]
//          the sender of this phase measures; the target keeps its QP up
//          every rank reports to rank 0 -> rank 0: "go" {ranks gone, stop}
//
// Every wait has a deadline. A partner that does not answer is a finding and
// the run goes on without it; a rank that stops reporting is named gone and
// left out of the remaining rounds. The launcher sits behind MeshComm and the
// hardware behind VerbsDevice, so this logic runs in tests without either.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "perf/mesh_comm.h"
#include "perf/session.h"
#include "perf/test_spec.h"
#include "perf/verbs_device.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope::perf {

/// One rank as rank 0 knows it.
struct MeshRank {
    int rank = 0;
    std::string host;
    std::string device;
    int port = 0;
    int plane = 0;      ///< device i of every host is plane i; pairs stay within a plane
    std::string error;  ///< why it takes no part ("" when it does)
    bool gone = false;  ///< stopped reporting during the run
    int gone_round = -1;
};

struct MeshPair {
    int a = 0;  ///< ranks; a sends first
    int b = 0;
    bool both_ways = true;
};

/// One direction of one pair test.
struct MeshFlow {
    size_t round = 0;  ///< from 0
    int src = 0;       ///< ranks
    int dst = 0;
    bool measured = false;  ///< false: not run (a rank gone or without a device)
    bool ok = false;
    std::string error;
    double avg_gbps = 0;
    double peak_gbps = 0;
    double min_window_gbps = 0;
    uint64_t bytes = 0;
    double seconds = 0;
};

struct MeshFinding {
    std::string kind;  ///< "rank-gone", "rank-unavailable", "flow-failed"
    int rank = -1;
    int round = -1;  ///< from 0; -1 before the rounds
    std::string message;
};

/// What rank 0 knows about the run, complete or not.
struct MeshRunData {
    TestSpec spec;
    std::string pattern = "all-pairs";
    std::string launcher;  ///< "Open MPI v4.1.4"
    std::vector<MeshRank> ranks;
    std::vector<std::vector<MeshPair>> rounds;
    std::vector<MeshFlow> flows;  ///< every planned direction, measured or not
    std::vector<MeshFinding> findings;
    size_t rounds_done = 0;
    std::string status = "running";  ///< "complete", "interrupted", "aborted"
    double wall_seconds = 0;
};

using OpenDevice =
    std::function<Result<std::unique_ptr<VerbsDevice>>(const std::string& name, int port)>;

struct MeshRunOptions {
    TestSpec spec;                     ///< a bandwidth test (write by default)
    std::string device;                ///< -d: every rank's device ("" = the first)
    std::vector<std::string> devices;  ///< --devices: local rank i takes devices[i] (plane i)
    int port = 0;
    PeerOptions peer;  ///< GID index, traffic class, MTU cap
    /// Each wait for a partner or for rank 0; a partner silent this long is gone.
    Millis step_timeout{10000};
    /// Rank 0, after every step and at the end: the data so far (to write
    /// the report as it grows, so even a killed rank 0 leaves one).
    std::function<void(const MeshRunData&)> on_progress;
};

struct MeshRunOutcome {
    MeshRunData data;   ///< rank 0 only
    std::string error;  ///< this rank could not take part or lost rank 0
    bool peers_gone = false;
};

/// Runs this rank's part; returns when the run is over for it. Never throws.
MeshRunOutcome run_mesh(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                        const StopToken& stop);

/// The rounds: all-pairs within each plane (perf/schedule), planes side by
/// side, over the ranks without an error.
std::vector<std::vector<MeshPair>> plan_rounds(const std::vector<MeshRank>& ranks);

}  // namespace fabscope::perf
