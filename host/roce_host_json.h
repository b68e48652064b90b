#pragma once
// One host's part of a RoCE discovery as JSON: what each MPI rank sends to
// rank 0, and what `discover --roce --host-report FILE` writes for a merge
// (`discover --roce --merge FILE...`). Also the LLDP neighbours as the
// snapshot's "lldp" member (docs/snapshot.schema.json).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/roce_fabric.h"
#include "util/result.h"

namespace fabscope::host {

inline constexpr const char* kRoceHostFormat = "fabscope-roce-host";
inline constexpr int kRoceHostVersion = 1;

nlohmann::json neighbour_to_json(const LldpNeighbour& n);
nlohmann::json roce_host_to_json(const RoceHost& h);
/// Errors name the JSON path of the bad value.
Result<RoceHost> roce_host_from_json(const nlohmann::json& j);
/// Reads a host report file; errors name the file.
Result<RoceHost> load_roce_host(const std::string& path);
/// The snapshot's "lldp" member: per host, its neighbours.
nlohmann::json lldp_to_json(const std::vector<RoceHost>& hosts);

}  // namespace fabscope::host
