#pragma once
// Rank 0's plan of a mesh run: which pairs test in which round, both ways or
// one, each direction steered onto a chosen path. Every pattern is the
// scheduler's (schedule/schedule) over the run's ranks; cover, leaf and the
// adaptive rounds plan over a PathSource (InfiniBand routes or traced paths)
// and become rounds by one conversion (mesh_rounds). Also the plan as the
// ranks send it. Pure: the run's data in, rounds out.

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mesh/path_source.h"
#include "mesh/report.h"
#include "mesh/run_data.h"
#include "schedule/schedule.h"
#include "schedule/schedule_json.h"

namespace fabscope::perf {

/// The scheduler's rounds as a run's: endpoint i is rank `ranks[i]`, and
/// `steer` sets what chooses each direction's path (RoCE flow labels, IB LMC
/// path bits) from the test's variants. Rounds left empty are dropped.
std::vector<std::vector<MeshPair>> mesh_rounds(
    const std::vector<int>& ranks, const std::vector<Round>& rounds,
    const std::function<void(const PairTest&, MeshPair&)>& steer = nullptr);

/// All-pairs within each plane, planes side by side, over the ranks that can test.
std::vector<std::vector<MeshPair>> plan_all_pairs(const std::vector<MeshRank>& ranks);
/// The ranks that can test (no error, not gone, not the coordinator), by
/// plane: all-pairs pairs them within each plane, the ring makes each plane
/// a ring.
std::map<int, std::vector<MeshRank>> ranks_by_plane(const std::vector<MeshRank>& ranks);
/// The same in two steps: each plane's ranks that can test, and their
/// rounds. A plan carries the members, not the rounds: N-1 rounds of N/2
/// pairs are 48 MB of JSON at 2,048 ranks, the members 10 KB.
std::vector<std::vector<int>> all_pairs_members(const std::vector<MeshRank>& ranks);
std::vector<std::vector<MeshPair>> all_pairs_rounds(const std::vector<std::vector<int>>& members);

/// The pattern's paths: the snapshot's routes when the run has them, else
/// the traces taken before the rounds (over `traced`, which must outlive it).
PathSource path_source(const MeshRunData& d, const TracedFabric& traced);

/// Cover over the run's paths: every switch-to-switch lane each way,
/// `passes` times with other pairs each time, in at most `max_rounds`;
/// `scheduled` gets the scheduler's own account (the lanes its first pass
/// crosses, the pairs it wanted without a path), for a dry run to print.
std::vector<std::vector<MeshPair>> plan_cover(const MeshRunData& d, size_t max_rounds,
                                              Schedule* scheduled = nullptr, size_t passes = 1);

/// All pairs under each leaf, every leaf at once (InfiniBand: the leaf is
/// the switch a rank's port is cabled to in the snapshot).
std::vector<std::vector<MeshPair>> plan_leaf(const MeshRunData& d);

/// Rounds for `pairs` (each both ways) over the ranks of `d` that can test;
/// a finding of kind "pair-not-run" per pair that cannot run, naming
/// `from`:line.
std::vector<std::vector<MeshPair>> plan_named_pairs(const MeshRunData& d,
                                                    const std::vector<NamedPair>& pairs,
                                                    const std::string& from,
                                                    std::vector<MeshFinding>& findings);

/// Rounds that separate what the analysis so far left open (confounded,
/// undersampled or contested suspects, lanes no measured flow crossed), at
/// most `max_rounds`, each no bigger than the largest planned round.
std::vector<std::vector<MeshPair>> plan_separating(const MeshRunData& d, const MeshAnalysis& a,
                                                   size_t max_rounds);

/// The most pairs a planned round runs at once (an adaptive round runs no
/// more, so it loads the fabric no more than the plan did).
size_t planned_pairs_at_once(const MeshRunData& d);

/// What rank 0 plans from besides the run's data.
struct PlanRequest {
    std::string pattern = "all-pairs";  ///< "cover", "pairs", "leaf", "ring"
    size_t max_cover_rounds = 8;
    size_t cover_passes = 1;
    std::vector<NamedPair> pairs;  ///< "pairs"
    std::string pairs_from;
    std::vector<uint64_t> ring_sizes;  ///< "ring": the all-reduce's sizes, bytes
    uint32_t ring_iterations = 0;
};

/// The one dispatch of a mesh run's patterns, `mesh run`'s and `mesh
/// plan`'s (mesh/dry_run.h): plans `r.pattern` into d.rounds and d.pattern
/// (a cover with nothing to cover, no router having answered or every rank
/// under one leaf, tests every pair; a ring fills d.rings, its edges the one
/// round), with every planned direction in d.flows. `cover_scheduled`: a
/// cover's own account (plan_cover). Returns why the run cannot start (""
/// when it can).
std::string plan_run(MeshRunData& d, const PlanRequest& r, Schedule* cover_scheduled = nullptr);

/// Rounds `first`.. of d.rounds as flows not yet run.
void add_flows(MeshRunData& d, size_t first);

/// The rounds as the plan carries them, and back (throws on a bad plan):
/// a pair is [a, b] both ways with nothing steered, [a, b, false] one way,
/// else [a, b, both ways, label ab, label ba, path bits ab, path bits ba].
nlohmann::json rounds_json(const std::vector<std::vector<MeshPair>>& rounds);
std::vector<std::vector<MeshPair>> rounds_from_json(const nlohmann::json& j);

/// The plan's rounds of `d`: all-pairs as its planes' members, any other
/// pattern as its rounds; and back, checked against the `ranks` of the run
/// (every rank in range, none twice in a round; throws on a bad plan).
void add_plan_rounds(const MeshRunData& d, nlohmann::json& plan);
std::vector<std::vector<MeshPair>> plan_rounds(const nlohmann::json& plan, size_t ranks);
/// A ring plan's rings (its "orders"), checked against the `ranks` of the
/// run: at least one ring, each of two ranks or more, every rank in range
/// and in one ring once at most (throws on a bad plan).
std::vector<std::vector<int>> plan_ring_orders(const nlohmann::json& plan, size_t ranks);

}  // namespace fabscope::perf
