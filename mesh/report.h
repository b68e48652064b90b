#pragma once
// What a mesh run found: which flows fell short, which endpoints explain
// them (schedule/localize over each endpoint's send and receive side, until the
// flows' paths through the fabric are known), and the report: JSON
// (docs/mesh-run.schema.json) and the human summary, top suspects first.

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mesh/links.h"
#include "mesh/run_data.h"

namespace fabscope::perf {

/// One side of one endpoint: a NIC (or its cable) that slows what it sends
/// or what it receives.
struct EndpointSide {
    int rank = 0;
    bool sending = true;
};

struct EndpointSuspect {
    /// One when localized; several when the flows cannot tell them apart.
    std::vector<EndpointSide> sides;
    size_t slow_flows = 0;
    size_t total_flows = 0;
    std::vector<size_t> evidence;  ///< indices into MeshRunData::flows
    /// Its device's counters (both ends' when it is several sides) over its
    /// slow flows, and, when localized, over the healthy flows of its side.
    FlowCounters slow_counters;
    FlowCounters healthy_counters;
};

struct MeshAnalysis {
    double slow_ratio = 0.5;
    /// Per flow: measured bandwidth / the median of its plane; 0 for a flow
    /// that failed between live ranks; -1 when not measured.
    std::vector<double> ratio;
    /// Per flow: what localization counts against its path: below the
    /// ratio, or `lossy`.
    std::vector<char> slow;
    /// Per flow: the loss detector fired over its ends' counters
    /// (loss_on_lossless_class: retransmissions, sequence errors, timeouts),
    /// whatever its bandwidth: a port that drops one packet in a thousand
    /// costs little bandwidth and much of a collective's time.
    std::vector<char> lossy;
    /// Per flow: how strongly it speaks against its path, if slow
    /// (slow_strength; localize's FlowObservation::strength).
    std::vector<double> strength;
    std::vector<std::pair<int, double>> plane_median_gbps;
    std::vector<EndpointSuspect> suspects;
    /// The cables and lanes the flows' traced paths point at (RoCE).
    MeshLinks links;
    /// A suspect of either kind is named.
    bool any_suspect() const { return !suspects.empty() || !links.suspects.empty(); }
};

/// A flow is slow below `slow_ratio` of its plane's median, or when it lost
/// packets on the way.
MeshAnalysis analyse_mesh(const MeshRunData& d, double slow_ratio);

/// Rank `r`'s host as the report names it ("rank 3" for one that never said hello).
std::string host_of(const MeshRunData& d, int r);

nlohmann::json mesh_run_json(const MeshRunData& d, const MeshAnalysis& a);
/// The same document written to `out` a flow at a time (one per line), so
/// writing it costs its head in memory, not the whole document: an
/// all-pairs run's flows are millions (1,024 ranks: 1,047,552 flows, a
/// 429 MB document that took 4.2 GB as one JSON value).
void write_mesh_run_json(std::ostream& out, const MeshRunData& d, const MeshAnalysis& a);

/// "cable l1[10.9.12.0] <-> s2[10.9.12.1] (both ways): 14 of 14 flows through
/// it slow ...", then lanes the flows cannot tell apart, then
/// "h3 (receiving): 7 of 7 flows slow, 0.31 of the median": suspects first,
/// then findings (at most kSummaryFindingsPerKind of each kind, then how
/// many more), then the totals; one line each.
constexpr size_t kSummaryFindingsPerKind = 10;
std::vector<std::string> mesh_run_summary(const MeshRunData& d, const MeshAnalysis& a);

/// "h3 (receiving)" or "h3 (receiving) or h1 (sending)".
std::string describe(const MeshRunData& d, const EndpointSuspect& s);

}  // namespace fabscope::perf
