#pragma once
// Planning a mesh run on RoCE from traced paths. ECMP picks a flow's spine by
// a hash of its UDP source port, and the kernel derives that port from the
// QP's GRH flow label, so a flow's path is chosen by its label: every rank
// traces a few source ports to every other (MeshRunData::traces), and the
// scheduler's cover (perf/schedule) picks for each pair and direction the
// port, so the label, whose path crosses lanes not yet crossed. After the
// planned rounds, perf/localize's separating rounds test the lanes the flows
// could not tell apart, again steered by label. Pure: the run's data in,
// rounds out.

#include <functional>
#include <vector>

#include "perf/mesh_report.h"
#include "perf/mesh_run.h"
#include "perf/schedule.h"

namespace fabscope::perf {

/// What the scheduler needs, from the traces: one endpoint per rank that can
/// test (an index into `ranks`), the paths of each pair per source port, and
/// the fabric the traces show.
struct TracedPlanView {
    std::vector<int> ranks;  ///< endpoint i is rank ranks[i]
    std::vector<MeshEndpoint> endpoints;
    TracedPathOracle oracle;
};

/// `fabric` must know every traced path (TracedFabric::from_paths over them).
TracedPlanView traced_plan_view(const MeshRunData& d, const TracedFabric& fabric);

/// The flow label that makes rxe send from `sports[variant]` (0 when out of range).
uint32_t label_of(const MeshRunData& d, int variant);

/// Cover over the traced paths, as mesh rounds with flow labels; `coverage`
/// is what the plan crosses of the lanes the traces show.
std::vector<std::vector<MeshPair>> plan_traced_cover(const MeshRunData& d, size_t max_rounds,
                                                     Coverage* coverage = nullptr);

/// Rounds that separate what the analysis of the flows so far left open
/// (confounded or undersampled lanes) and cross again the lanes no measured
/// flow crossed (a rank died, a flow failed), from the ranks still there;
/// one-way, at most `max_rounds`.
std::vector<std::vector<MeshPair>> plan_separating(const MeshRunData& d, const MeshAnalysis& a,
                                                   size_t max_rounds);

/// The most pairs a planned round ran at once: separating rounds run no more.
/// The median a flow is judged against comes from the planned rounds, and
/// where the ends share a CPU (the Soft-RoCE lab: 4 flows at once got half
/// of what 2 did) more flows at once would look slow for no fault of the
/// fabric's.
size_t planned_pairs_at_once(const MeshRunData& d);

/// The scheduler's rounds as a run's: endpoint i is rank `ranks[i]`, and
/// `steer` sets what chooses each direction's path (RoCE flow labels, IB LMC
/// path bits) from the test's variants. Rounds left empty are dropped.
std::vector<std::vector<MeshPair>> mesh_rounds(
    const std::vector<int>& ranks, const std::vector<Round>& rounds,
    const std::function<void(const PairTest&, MeshPair&)>& steer);

}  // namespace fabscope::perf
