#pragma once
// A mesh run's report (docs/mesh-run.schema.json, what `fabscope mesh run -o`
// writes) read back for `fabscope report` and the TUI's pair view: the
// suspects in the order the run's summary names them (cables, then lanes the
// flows cannot tell apart, then endpoints), each with its evidence, the
// flows that make the pair matrix, and the findings. Plain data; the analysis
// that made it lives in mesh/report and is not needed to show it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/counter_map.h"
#include "util/result.h"

namespace fabscope {

/// One direction of one tested pair.
struct MeshFlowDoc {
    size_t round = 1;
    size_t src = 0;  ///< ranks
    size_t dst = 0;
    std::string src_host;
    std::string dst_host;
    bool measured = false;
    bool ok = false;
    std::string error;
    double avg_gbps = 0;
    std::optional<double> ratio;  ///< of its plane's median; unset when not measured
    bool slow = false;
};

/// What the flows point at, with the flows that say so.
struct MeshSuspectDoc {
    std::string kind;    ///< "cable", "lanes" (several the flows cannot tell apart), "endpoint"
    std::string name;    ///< "l1[10.9.12.0] <-> s2[10.9.12.1]", "h3 (receiving)"
    std::string detail;  ///< "both ways", "one way", "one of 2 lanes", "receive side"
    size_t slow_flows = 0;
    size_t total_flows = 0;
    double mean_ratio = 0;         ///< of the slow flows through it, to their plane's median
    std::vector<size_t> evidence;  ///< indices into the flows: the slow ones through it
    std::vector<size_t> healthy;   ///< the flows through it that were not slow (when known)
    /// The event counters its slow flows' ends counted (counters.slow.sum,
    /// errors and waits, not traffic); empty when none or not in the report.
    CounterMap counted;
    /// InfiniBand: what the switch ports at its lanes' ends counted over the
    /// run, a phrase per lane ("its switch ports counted leaf01[4] (sending)
    /// PortXmitWait +90000", perf::switch_ports_phrase); nothing when the
    /// report has none.
    std::optional<std::string> switch_counted;
    size_t healthy_flows() const { return total_flows - slow_flows; }
};

struct MeshFindingDoc {
    std::string kind;  ///< "rank-gone", "rank-unavailable", "flow-failed"
    std::string host;  ///< "" when not about one rank
    size_t round = 0;  ///< 0: before the rounds
    std::string message;
};

/// A ring all-reduce's figures (`mesh run --pattern ring`, "ring").
struct MeshRingSizeDoc {
    uint64_t bytes = 0;
    bool measured = false;
    double time_us = 0;
    double algbw_gbs = 0;  ///< GB/s, 1e9 bytes/s, as nccl-tests
    double busbw_gbs = 0;
};

struct MeshRingEdgeDoc {
    std::string src_host;
    std::string dst_host;
    double gbps = 0;  ///< Gb/s
};

/// The slowest edge at the largest size measured, and what the slow edges cost.
struct MeshRingCostDoc {
    MeshRingEdgeDoc edge;
    uint64_t bytes = 0;
    double median_gbps = 0;
    std::vector<MeshRingEdgeDoc> slow;  ///< the slowest first
    std::vector<std::string> cables;    ///< every slow edge crosses them
    std::vector<std::string> path;      ///< the slowest edge's lanes
    double busbw_gbs = 0;
    double busbw_if_median_gbs = 0;
    double cost = 0;  ///< 0 .. 1 of the bus bandwidth
};

struct MeshRingDoc {
    int plane = 0;
    size_t ranks = 0;
    std::string ordered_by;  ///< "leaf", "rank"
    std::vector<MeshRingSizeDoc> sizes;
    std::optional<MeshRingCostDoc> slowest;
    /// The largest size measured (where the verdict is read), or null.
    const MeshRingSizeDoc* verdict() const;
};

/// What the slowest plane's ring costs a job splitting each all-reduce over
/// the planes ("ring_planes").
struct MeshRingPlanesDoc {
    size_t planes = 0;
    uint64_t bytes = 0;
    int slowest_plane = 0;
    int fastest_plane = 0;
    double busbw_gbs = 0;  ///< the job's
    double busbw_if_fastest_gbs = 0;
    double cost = 0;  ///< 0 .. 1
};

/// "ring all-reduce of 64M over 8 ranks: busbw 2.41 GB/s (algbw 1.38 GB/s,
/// 48.6 ms)" ("plane 1: ring all-reduce ..." with `name_plane`), then the
/// slowest edge and what the slow edges cost; the lines the report and the
/// TUI's pairs view show.
std::vector<std::string> ring_lines(const MeshRingDoc& r, bool name_plane = false);
/// "plane 1's ring is the slowest of 2: ...".
std::string ring_planes_line(const MeshRingPlanesDoc& p);

struct MeshRunDoc {
    std::string status;   ///< "complete", "running", "interrupted", "aborted"
    std::string pattern;  ///< "all-pairs", "cover"
    std::string launcher;
    std::string test;  ///< "write_bw 64K"
    double slow_ratio = 0.5;
    double wall_seconds = 0;
    std::vector<std::string> hosts;  ///< by rank ("rank 3" for one that never said hello)
    size_t rounds = 0;
    size_t rounds_done = 0;
    std::vector<MeshFlowDoc> flows;
    std::vector<std::pair<int, double>> plane_medians;  ///< plane, Gb/s
    std::vector<MeshSuspectDoc> suspects;               ///< the order to name them in
    std::vector<MeshFindingDoc> findings;
    size_t lanes = 0;  ///< switch-to-switch lanes the traces showed
    size_t lanes_crossed = 0;
    size_t traced = 0;               ///< flows with a path
    std::vector<MeshRingDoc> rings;  ///< --pattern ring: a ring per plane
    std::optional<MeshRingPlanesDoc> ring_planes;

    size_t measured() const;
    size_t slow() const;
    /// "h1 → h5 0.21 of the median" for flow i, or why it has no figure.
    std::string flow_text(size_t i) const;
};

/// What a suspect's ends and switch ports counted, a phrase each ("its slow
/// flows' ends counted duplicate_request +880, ...", "its switch ports
/// counted leaf01[4] (sending) PortXmitWait +90000"); none when the report
/// has neither. The report's finding and the TUI's pairs view say the same.
std::vector<std::string> suspect_counted_phrases(const MeshSuspectDoc& s);

/// A mesh run report (no "format" key, or "fabscope-mesh-run"): the shape of
/// docs/mesh-run.schema.json without a format of another kind.
bool looks_like_mesh_run(const nlohmann::json& j);

/// Reads a mesh run report; errors name the JSON path of the bad value
/// (ranks and flow indices in range, counts consistent).
Result<MeshRunDoc> mesh_run_doc_from_json(const nlohmann::json& j);

/// The flows a pair matrix shows: every measured flow, the first of each
/// direction (the adaptive rounds repeat some), among at most `max_hosts`
/// hosts. A bigger run keeps the hosts of its slow and failed flows.
std::vector<size_t> mesh_matrix_flows(const MeshRunDoc& d, size_t max_hosts);

}  // namespace fabscope
