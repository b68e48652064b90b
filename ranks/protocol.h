#pragma once
// The protocol every run with several ranks speaks over a MeshComm (see
// ranks/comm.h): the hellos, read by rank 0 without trusting them, and the
// safe parse of any message.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/duration.h"
#include "ranks/comm.h"
#include "ranks/rank.h"

namespace fabscope::perf {

/// A message that is not a JSON object counts as not received.
std::optional<nlohmann::json> parse_message(const std::optional<std::string>& m);

/// Rank 0's view of everyone's hello: a rank that sent none within
/// `start_wait` is gone (and skipped from then on), one that could not open
/// its device takes no part; each is a finding.
std::vector<MeshRank> ranks_from_hellos(const MeshComm::Messages& hellos, Millis start_wait,
                                        std::vector<char>& skip,
                                        std::vector<MeshFinding>& findings);

}  // namespace fabscope::perf
