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

#include "model/fabric.h"
#include "perf/mesh_comm.h"
#include "perf/mesh_switch_counters.h"
#include "perf/open_device.h"
#include "perf/roce_trace.h"
#include "perf/schedule_json.h"
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
    int plane = 0;             ///< device i of every host is plane i; pairs stay within a plane
    std::string address;       ///< the IPv4 address of its RoCE GID (cover only; "" unknown)
    uint16_t lid = 0;          ///< its port's base LID (InfiniBand; 0 on RoCE or unknown)
    uint64_t port_guid = 0;    ///< its port's GUID, from GID 0 (InfiniBand; 0 unknown)
    std::string error;         ///< why it takes no part ("" when it does)
    bool coordinator = false;  ///< rank 0 of an agents' run: plans and collects, tests nothing
    bool gone = false;         ///< stopped reporting during the run
    int gone_round = -1;
};

struct MeshPair {
    int a = 0;  ///< ranks; a sends first
    int b = 0;
    bool both_ways = true;
    /// RoCE flow labels of a's and b's QP (0: none): they choose the UDP
    /// source port, so the ECMP path, of each direction.
    uint32_t label_ab = 0;
    uint32_t label_ba = 0;
    /// InfiniBand with LMC > 0: added to the destination's base LID, so the
    /// subnet manager's route to that LID (maybe over another spine) is taken.
    uint8_t path_bits_ab = 0;
    uint8_t path_bits_ba = 0;
};

/// A path traced before the rounds, to plan them: from rank `src` to `dst`
/// with UDP source port `sport` (variant = its index in MeshRunData::sports).
/// No hops: no router between them (or none answered).
struct MeshTrace {
    int src = 0;
    int dst = 0;
    int variant = 0;
    std::vector<TraceHop> hops;
};

/// One direction of one pair test.
struct MeshFlow {
    size_t round = 0;  ///< from 0
    int src = 0;       ///< ranks
    int dst = 0;
    uint8_t path_bits = 0;  ///< sent to dst's LID + path_bits (MeshPair)
    bool measured = false;  ///< false: not run (a rank gone or without a device)
    bool ok = false;
    std::string error;
    double avg_gbps = 0;
    double peak_gbps = 0;
    double min_window_gbps = 0;
    uint64_t bytes = 0;
    double seconds = 0;
    /// The flow's own traced path (perf/flow_path's "path" object), null when
    /// not traced.
    nlohmann::json path;
    /// hw_counters that moved during the flow: {"local": the sender's,
    /// "remote": the receiver's}, over `counted_s`; and the congestion
    /// detectors over them (perf/test_congestion.h).
    nlohmann::json counters = nlohmann::json::object();
    double counted_s = 0;
    std::string src_device;  ///< "mlx5_0/1", as the ranks said
    std::string dst_device;
    std::vector<Finding> congestion;
    bool congestion_read = false;  ///< the detectors have run over it
};

struct MeshFinding {
    std::string kind;  ///< "rank-gone", "rank-unavailable", "flow-failed", "congestion"
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
    /// Paths traced before the rounds (to plan a cover), and the UDP source
    /// ports traced (variant i is sports[i], steered by its flow label).
    std::vector<MeshTrace> traces;
    std::vector<uint16_t> sports;
    /// InfiniBand: the snapshot whose forwarding tables give every flow's
    /// path (rank 0's --load; null on RoCE), and the file it came from.
    std::shared_ptr<const Fabric> routes;
    std::string routes_from;
    /// The PMA counters of the snapshot's switch-to-switch ports, read by
    /// rank 0 before the first round and after the last (perf/mesh_ib).
    SwitchCounters switch_counters;
    /// Rounds planned by the pattern; the rounds after them are the adaptive pass.
    size_t planned_rounds = 0;
    size_t rounds_done = 0;
    std::string status = "running";  ///< "complete", "interrupted", "aborted"
    double wall_seconds = 0;
};

/// Whether a flow tells of the fabric: it ran, and did not fail because one
/// of its ends was gone by its round (the rank-gone finding says that; the
/// flow's path is not to blame).
inline bool flow_is_evidence(const MeshRunData& d, const MeshFlow& f) {
    if (!f.measured) return false;
    if (f.ok) return true;
    for (int r : {f.src, f.dst}) {
        if (r < 0 || static_cast<size_t>(r) >= d.ranks.size()) continue;
        const MeshRank& k = d.ranks[static_cast<size_t>(r)];
        if (k.gone && k.gone_round <= static_cast<int>(f.round)) return false;
    }
    return true;
}

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
    /// "all-pairs", or "cover": every rank first traces `trace_variants` UDP
    /// source ports to every other (trace_sports), rank 0 plans rounds that
    /// cross every lane the traces show, steering each flow by its flow label,
    /// and after them adds up to `adaptive_rounds` rounds that separate
    /// suspects the flows could not tell apart (on InfiniBand, with `routes`,
    /// from the forwarding tables instead of traces). "pairs": the pairs of
    /// `pairs`; "leaf": all pairs under each leaf of `routes`, leaves at once.
    std::string pattern = "all-pairs";
    /// --pattern pairs (rank 0): the pairs by host name, and the file they
    /// came from (findings name its lines).
    std::vector<NamedPair> pairs;
    std::string pairs_from;
    /// Rank 0 does this much more before it sends the plan (loads --load's
    /// snapshot, reads the switch counters): every rank waits that longer.
    Millis plan_extra{0};
    /// This rank's host name in the report and in `pairs` ("": hostname()).
    std::string host;
    /// Traces each port from `source` to `destination` (IPv4); none when no
    /// router is between them.
    std::function<std::vector<FlowTrace>(const std::string& source, const std::string& destination,
                                         const std::vector<uint16_t>& sports)>
        trace_sports;
    int trace_variants = 8;
    size_t max_cover_rounds = 8;
    size_t adaptive_rounds = 4;
    double slow_ratio = 0.6;  ///< for the adaptive pass's analysis
    /// The sender of each flow, once measured: the flow's traced path
    /// (MeshFlow::path; null: none). Unset: nothing is traced.
    std::function<nlohmann::json(const EndpointInfo& local, const EndpointInfo& remote)> trace_flow;
    /// InfiniBand (rank 0): a snapshot with forwarding tables. Every flow's
    /// path is its route there, a cover is planned from the routes (no
    /// traces), and suspects are the snapshot's cables, named by port.
    std::shared_ptr<const Fabric> routes;
    std::string routes_from;
    /// With `routes`: reads the PMA counters of its switch-to-switch ports,
    /// before the first round and after the last (unset: not read).
    ReadSwitchCounters read_switch_counters;
    /// Rank 0: why the run cannot start (a snapshot that would not load);
    /// every rank is told so instead of a plan.
    std::string cannot_start;
    /// Rank 0 only plans and collects (the coordinator of agents, which may
    /// have no RDMA device): it opens none and is in no pair.
    bool coordinator_only = false;
};

/// The tag of the first message every rank sends rank 0 (its hello).
inline constexpr int kMeshTagHello = 1;

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
