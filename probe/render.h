#pragma once
// What a probe agent serves (pure): the Prometheus text of /metrics and the
// JSON of /probe.json (docs/probe.schema.json), both from the last interval's
// snapshot. Labels are bounded: per peer only for the hosts under this
// host's leaf; the other leaves aggregated per leaf pair (docs/user-guide.md
// gives the arithmetic for 4,096 hosts).

#include <nlohmann/json.hpp>
#include <string>

#include "probe/engine.h"

namespace fabscope::probe {

std::string probe_metrics(const ProbeSnapshot& s, const std::string& version);
nlohmann::json probe_json(const ProbeSnapshot& s, const std::string& version);

}  // namespace fabscope::probe
