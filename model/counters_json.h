#pragma once
// JSON for port counters: {"extended": true, "read_at_ms": ..., "SymbolErrorCounter": 0, ...},
// counters named as perfquery prints them; absent ones are left out.

#include <nlohmann/json.hpp>

#include "model/counters.h"

namespace fabscope {

nlohmann::json counters_to_json(const PortCounters& pc);
/// Throws a JSON error naming the path of a bad value (see json_io::guarded).
PortCounters counters_from_json(const nlohmann::json& j);

}  // namespace fabscope
