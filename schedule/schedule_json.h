#pragma once
// A schedule as JSON (docs/mesh-plan.schema.json): the endpoints, every
// round's tests and, when paths are known, each flow's hops; what a dry run
// prints and what a mesh run's report embeds.

#include <nlohmann/json.hpp>
#include <string>

#include "schedule/schedule.h"

namespace fabscope {

struct ScheduleJsonOptions {
    bool paths = true;  ///< each flow's hops (large for all-pairs on big fabrics)
};

nlohmann::json schedule_json(const Schedule& s, const std::vector<MeshEndpoint>& endpoints,
                             const Fabric& f, const PathOracle* oracle,
                             const ScheduleJsonOptions& o = {});

/// One line of a pairs file: two endpoints by name, as written.
struct NamedPair {
    std::string a;
    std::string b;
    size_t line = 0;
};

/// Reads a pairs file's lines: "SRC DST" per line, '#' starts a comment. At
/// most 1 MiB and 100,000 pairs; names of at most 256 characters. Errors
/// name the file and line (exit 2). The names are not looked up.
Result<std::vector<NamedPair>> read_pair_names(const std::string& path);

/// Reads an explicit pairs file: one pair per line, "SRC DST" by host name
/// (first word of the description), GUID or LID; '#' starts a comment. At
/// most 1 MiB and 100,000 pairs. Errors name the file and line (exit 2).
Result<std::vector<std::pair<size_t, size_t>>> read_pairs_file(
    const std::string& path, const Fabric& f, const std::vector<MeshEndpoint>& endpoints);

/// The endpoint a command-line word names (host name, GUID or LID).
Result<size_t> find_endpoint(const std::string& key, const Fabric& f,
                             const std::vector<MeshEndpoint>& endpoints);

}  // namespace fabscope
