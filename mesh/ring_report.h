#pragma once
// The ring pattern's part of a mesh run's report (`mesh run --pattern
// ring`): for each plane's ring the collective's figures per message size
// as nccl-tests prints them, each edge's steps, the slowest edge with its
// path and what it costs the ring; then what the slowest plane's ring costs
// the job; as JSON ("rings" in docs/mesh-run.schema.json) and as the lines
// the run prints. Pure.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "mesh/run_data.h"

namespace fabscope::perf {

struct MeshAnalysis;

/// The report's object of ring `r` (one of `d.rings`).
nlohmann::json ring_json(const MeshRunData& d, const MeshAnalysis& a, const RingResult& r);

/// "ring_planes": what the slowest plane's ring costs a job that splits
/// each all-reduce over the planes; null with fewer than two rings.
nlohmann::json ring_planes_json(const MeshRunData& d);

/// "ring: ..." lines, per ring ("ring (plane 1): ..." with several): a line
/// per size, then the slowest edge and its cost; then the planes together.
std::vector<std::string> ring_summary(const MeshRunData& d, const MeshAnalysis& a);

}  // namespace fabscope::perf
