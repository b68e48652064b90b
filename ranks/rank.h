#pragma once
// A rank of a run with several ranks (mesh run, its incast pattern), as it
// says hello and as rank 0 then knows it: its host and device, its plane,
// its address (RoCE) or LID and port GUID (InfiniBand), and whether it takes
// part or is gone; the run's findings about ranks and flows; and the JSON of
// a rank, the same in the hello, the plan and the report.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace fabscope::perf {

/// One rank as rank 0 knows it.
struct MeshRank {
    int rank = 0;
    std::string host;
    std::string device;
    int port = 0;
    int plane = 0;             ///< device i of every host is plane i; pairs stay within a plane
    std::string address;       ///< the IPv4 address of its RoCE GID (cover only; "" unknown)
    uint16_t lid = 0;          ///< its port's base LID (InfiniBand; 0 on RoCE or unknown)
    uint64_t port_guid = 0;    ///< its port's GUID, from GID 0 (InfiniBand; 0 unknown)
    std::string error;         ///< why it takes no part ("" when it does)
    bool coordinator = false;  ///< rank 0 of an agents' run: plans and collects, tests nothing
    bool gone = false;         ///< stopped reporting during the run
    int gone_round = -1;
};

struct MeshFinding {
    std::string kind;  ///< "rank-gone", "rank-unavailable", "flow-failed", "congestion"
    int rank = -1;
    int round = -1;  ///< from 0; -1 before the rounds
    std::string message;
};

nlohmann::json rank_json(const MeshRank& r);
/// Throws nlohmann errors, or std::out_of_range for a LID or GUID out of range.
MeshRank rank_from_json(const nlohmann::json& j);
nlohmann::json ranks_json(const std::vector<MeshRank>& ranks);
/// A rank as a run's report lists it: rank, host, device, port, error and
/// gone; each report adds its own fields (docs/mesh-run.schema.json,
/// docs/mesh-incast.schema.json).
nlohmann::json rank_report_json(const MeshRank& r);
std::vector<MeshRank> ranks_from_json(const nlohmann::json& j);

/// "rank 3 (gpu07)", or "rank 3" when the host is not known.
std::string who(const std::vector<MeshRank>& ranks, int r);

}  // namespace fabscope::perf
