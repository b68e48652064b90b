#pragma once
// What the ranks of a launcher-run test (`mesh run`, its incast pattern) say
// to each other, shared by both: a rank's description, the safe parse of a
// message, a rank named for people, opening a rank's device and rank 0's
// reading of the hellos, and one bandwidth measurement reported as JSON.

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "perf/mesh_comm.h"
#include "perf/mesh_run.h"
#include "util/interrupt.h"

namespace fabscope::perf {

nlohmann::json rank_json(const MeshRank& r);
MeshRank rank_from_json(const nlohmann::json& j);

/// "rank 3 (gpu07)", or "rank 3" when the host is not known.
std::string who(const std::vector<MeshRank>& ranks, int r);

/// A message that is not a JSON object counts as not received.
std::optional<nlohmann::json> parse_message(const std::optional<std::string>& m);

/// One WRITE bandwidth test of `spec` on a connected endpoint, ended by
/// `stop` or after its duration, warm-up and `step_timeout`; the result as
/// the ranks report it (ok, error, avg/peak/min-window Gb/s, bytes, seconds).
/// Opens this rank's device: `self` takes the device's name and port as
/// opened, or the reason it could not be opened (then nullptr).
std::unique_ptr<VerbsDevice> open_rank_device(const OpenDevice& open, MeshRank& self);

/// Rank 0's view of everyone's hello: a rank that sent none within
/// `start_wait` is gone (and skipped from then on), one that could not open
/// its device takes no part; each is a finding.
std::vector<MeshRank> ranks_from_hellos(const MeshComm::Messages& hellos, Millis start_wait,
                                        std::vector<char>& skip,
                                        std::vector<MeshFinding>& findings);

nlohmann::json measure_bandwidth(TestEndpoint& ep, const TestSpec& spec, Millis step_timeout,
                                 const StopToken& stop);

}  // namespace fabscope::perf
