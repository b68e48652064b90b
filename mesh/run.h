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

#include "mesh/run_data.h"
#include "mesh/switch_counters.h"
#include "model/fabric.h"
#include "pairtest/session.h"
#include "ranks/comm.h"
#include "ranks/protocol.h"
#include "rdma/open_device.h"
#include "rdma/test_spec.h"
#include "rdma/verbs_device.h"
#include "schedule/schedule_json.h"
#include "trace/udp_tracer.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope::perf {

/// --pattern ring: the all-reduce every rank runs (mesh/ring_run.h).
struct RingTest {
    std::vector<uint64_t> sizes;  ///< the all-reduce's message sizes, bytes
    uint32_t iterations = 20;     ///< measured all-reduces per size (nccl-tests' -n)
    uint32_t warmup = 5;          ///< unmeasured first (nccl-tests' -w)
    /// The most one size's all-reduces may take; longer is that rank's error
    /// and ends the run (a ring that slow is a finding, not a wait).
    Millis timeout{600000};
};

/// What every rank of a run is asked to do, the same on all of them (an
/// agent's order carries it: mesh/order.h).
struct MeshTest {
    TestSpec spec;  ///< a bandwidth test (write by default)
    /// "all-pairs", or "cover": every rank first traces `trace_variants` UDP
    /// source ports to every other (trace_sports), rank 0 plans rounds that
    /// cross every lane the traces show, steering each flow by its flow label,
    /// and after them adds up to `adaptive_rounds` rounds that separate
    /// suspects the flows could not tell apart (on InfiniBand, with `routes`,
    /// from the forwarding tables instead of traces). "pairs": the pairs of
    /// `pairs`; "leaf": all pairs under each leaf of `routes`, leaves at once.
    std::string pattern = "all-pairs";
    /// Each wait for a partner or for rank 0; a partner silent this long is gone.
    Millis step_timeout{10000};
    /// Rank 0 does this much more before it sends the plan (loads --load's
    /// snapshot, reads the switch counters): every rank waits that longer.
    Millis plan_extra{0};
    int trace_variants = 8;
    /// Cover on RoCE: each rank traces this many other ranks (a sample the
    /// same both ways: rank 0 plans from the pairs traced), or every rank
    /// when there are no more than that; 0 = every rank. Read by rank 0,
    /// which sends it with the ranks to trace.
    int trace_targets = 64;
    size_t max_cover_rounds = 8;
    /// Cover: every lane crossed (and every rank tested) this many times,
    /// other pairs each time (within max_cover_rounds).
    size_t cover_passes = 1;
    size_t adaptive_rounds = 4;
    /// "ring": the all-reduce.
    RingTest ring;

    MeshTest& test() { return *this; }
    const MeshTest& test() const { return *this; }
};

struct MeshRunOptions : MeshTest {
    std::string device;                ///< -d: every rank's device ("" = the first)
    std::vector<std::string> devices;  ///< --devices: local rank i takes devices[i] (plane i)
    int port = 0;
    PeerOptions peer;  ///< GID index, traffic class, MTU cap
    /// Rank 0, after every step and at the end: the data so far (to write
    /// the report as it grows, so even a killed rank 0 leaves one).
    std::function<void(const MeshRunData&)> on_progress;
    /// --pattern pairs (rank 0): the pairs by host name, and the file they
    /// came from (findings name its lines).
    std::vector<NamedPair> pairs;
    std::string pairs_from;
    /// This rank's host name in the report and in `pairs` ("": host_name()).
    std::string host;
    /// Traces each port from `source` to `destination` (IPv4); none when no
    /// router is between them.
    TraceSports trace_sports;
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

struct MeshRunOutcome : RankOutcome {
    MeshRunData data;  ///< rank 0 only
};

/// Runs this rank's part; returns when the run is over for it. Never throws.
MeshRunOutcome run_mesh(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                        const StopToken& stop);

}  // namespace fabscope::perf
