#pragma once
// The ring pattern's part of a mesh run's report (`mesh run --pattern
// ring`): the collective's figures per message size as nccl-tests prints
// them, each edge's steps, the slowest edge with its path and what it costs
// the ring, as JSON ("ring" in docs/mesh-run.schema.json) and as the lines
// the run prints. Pure.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "mesh/run_data.h"

namespace fabscope::perf {

struct MeshAnalysis;

/// The "ring" object of the report.
nlohmann::json ring_json(const MeshRunData& d, const MeshAnalysis& a);

/// "ring: ..." lines: a line per size, then the slowest edge and its cost.
std::vector<std::string> ring_summary(const MeshRunData& d, const MeshAnalysis& a);

}  // namespace fabscope::perf
