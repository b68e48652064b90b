#pragma once
// A host's RoceChange (the counter changes of one interval) as JSON and
// back: what each rank of a fabric-wide test sends to rank 0, so the
// detectors run once over every host (a pause source and its victims are
// on different hosts), and what reports carry as evidence.
//
//   {"host", "interval_s", "problems": [..], "netdev_of": {"rxe0/1": "eth0"},
//    "rdma": {"rxe0/1": {"rcvd_pkts": {"delta", "per_second", "cleared"}}},
//    "eth": {"eth0": {...}}, "dcb": {"eth0": {dcb_to_json}}}

#include <nlohmann/json.hpp>

#include "congestion/roce_detectors.h"
#include "util/result.h"

namespace fabscope {

nlohmann::json roce_change_to_json(const RoceChange& c);
/// Errors say what is wrong, naming `origin`.
Result<RoceChange> roce_change_from_json(const nlohmann::json& j, const std::string& origin);

}  // namespace fabscope
