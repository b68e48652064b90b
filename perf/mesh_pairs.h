#pragma once
// `mesh run --pattern pairs`: the pairs of a file (perf/schedule_json's
// read_pair_names), by host name, matched to the ranks that joined, then
// packed into rounds by the scheduler's explicit_pairs. With several planes
// (--devices) a pair is tested in every plane both hosts have. A name that no
// rank able to test carries is a finding, not the end of the run: the host
// may be the one that is down. Pure: the run's ranks in, rounds out.

#include <string>
#include <vector>

#include "perf/mesh_run.h"
#include "perf/schedule_json.h"

namespace fabscope::perf {

/// Rounds for `pairs` (each both ways) over the ranks of `d` that can test;
/// a finding of kind "pair-not-run" per pair that cannot run, naming
/// `from`:line.
std::vector<std::vector<MeshPair>> plan_named_pairs(const MeshRunData& d,
                                                    const std::vector<NamedPair>& pairs,
                                                    const std::string& from,
                                                    std::vector<MeshFinding>& findings);

}  // namespace fabscope::perf
