#pragma once
// What a mesh run found, as rank 0 collects it step by step: the ranks, the
// rounds of pairs, every planned flow (measured or not) with its counters
// and congestion findings, the traces a cover was planned from, the
// snapshot whose routes gave the paths on InfiniBand and the switch ports'
// counters. mesh/report.h writes it as JSON (docs/mesh-run.schema.json).

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mesh/results/ring.h"
#include "mesh/results/switch_evidence.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "ranks/rank.h"
#include "rdma/test_spec.h"
#include "trace/hop_sequences.h"
#include "trace/roce_trace.h"
#include "util/name_table.h"
#include "util/packed_json.h"

namespace fabscope::perf {

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
/// with UDP source port `sport` (variant = its index in MeshRunData::sports),
/// over the hops MeshRunData::trace_hops keeps at `hops` (none: no router
/// between them, or none answered). MeshRunData::hops_of gives them.
struct MeshTrace {
    int src = 0;
    int dst = 0;
    int variant = 0;
    HopSequences::Id hops = HopSequences::kEmpty;
};

/// One direction of one pair test. Rank 0 of a 4,096-rank all-pairs run
/// holds 16.8 million: mind its size (168 bytes; the counters and the path
/// packed, the device names in a table).
struct MeshFlow {
    size_t round = 0;  ///< from 0
    int src = 0;       ///< ranks
    int dst = 0;
    uint8_t path_bits = 0;  ///< sent to dst's LID + path_bits (MeshPair)
    bool measured = false;  ///< false: not run (a rank gone or without a device)
    bool ok = false;
    bool congestion_read = false;  ///< the detectors have run over it
    /// "mlx5_0/1", as the ranks said: names in MeshRunData::devices.
    NameTable::Id src_device = 0;
    NameTable::Id dst_device = 0;
    std::string error;
    double avg_gbps = 0;
    double peak_gbps = 0;
    double min_window_gbps = 0;
    uint64_t bytes = 0;
    double seconds = 0;
    /// The flow's own traced path (trace/flow_path's "path" object), null when
    /// not traced. Packed, as the counters: rank 0 may hold millions of flows.
    PackedJson path;
    /// hw_counters that moved during the flow: {"local": the sender's,
    /// "remote": the receiver's}, over `counted_s`, null until an end said;
    /// and the congestion detectors over them (congestion/flow_congestion.h).
    PackedJson counters;
    double counted_s = 0;
    std::vector<Finding> congestion;
};

/// What rank 0 knows about the run, complete or not.
struct MeshRunData {
    TestSpec spec;
    std::string pattern = "all-pairs";
    std::string launcher;  ///< "Open MPI v4.1.4"
    std::vector<MeshRank> ranks;
    std::vector<std::vector<MeshPair>> rounds;
    std::vector<MeshFlow> flows;  ///< every planned direction, measured or not
    NameTable devices;            ///< the flows' devices, each name once
    std::vector<MeshFinding> findings;
    /// Paths traced before the rounds (to plan a cover), and the UDP source
    /// ports traced (variant i is sports[i], steered by its flow label).
    std::vector<MeshTrace> traces;
    HopSequences trace_hops;  ///< their hops, each distinct sequence once
    std::vector<uint16_t> sports;
    /// Ranks some rank was asked to trace but left out: its traces had
    /// reached the size one message may take (cover_traces.h kMaxTraceBytes).
    size_t traces_left_out = 0;
    /// InfiniBand: the snapshot whose forwarding tables give every flow's
    /// path (rank 0's --load; null on RoCE), and the file it came from.
    std::shared_ptr<const Fabric> routes;
    std::string routes_from;
    /// The PMA counters of the snapshot's switch-to-switch ports, read by
    /// rank 0 before the first round and after the last (mesh/ib).
    SwitchCounters switch_counters;
    /// Rounds planned by the pattern; the rounds after them are the adaptive pass.
    size_t planned_rounds = 0;
    /// Cover: the passes asked for (each crosses every lane once more).
    size_t cover_passes = 1;
    size_t rounds_done = 0;
    /// --pattern ring: the collective's figures, a ring per plane; their
    /// edges are the flows (one round, each rank to the next, at the
    /// largest size; ring g's from rings[g].first_flow).
    std::vector<RingResult> rings;
    std::string status = "running";  ///< "complete", "interrupted", "aborted"
    double wall_seconds = 0;

    void add_trace(int src, int dst, int variant, const std::vector<TraceHop>& hops) {
        traces.push_back({src, dst, variant, trace_hops.intern(hops)});
    }
    [[nodiscard]] const std::vector<TraceHop>& hops_of(const MeshTrace& t) const {
        return trace_hops[t.hops];
    }
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

}  // namespace fabscope::perf
