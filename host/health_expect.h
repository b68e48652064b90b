#pragma once
// What `fabscope health --expect FILE` says this host should look like, a
// small YAML (or JSON) file:
//
//   fabscope_health: 1
//   devices: [mlx5_0, mlx5_1]   # or a count: devices: 2
//   expect: {width: 4X, speed: HDR}
//   counter_rise: {symbol_error: 10}   # allowed rise between two runs (default 0)

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/link_rate.h"
#include "model/plan_cable.h"
#include "util/result.h"

namespace fabscope {
struct Plan;
}

namespace fabscope::host {

inline constexpr int kHealthExpectVersion = 1;

/// A plan link's end with the cable planned on it: `health --plan` checks
/// the module of the port it names, where that port is this host's.
struct PlannedCable {
    std::string node;  ///< as the plan names it: "h1 mlx5_0", or "h1" for a one-device host
    int port = 0;
    PlanCable cable;
};

struct HealthExpect {
    std::vector<std::string> devices;  ///< devices that must be present by name
    int min_devices = 1;               ///< at least this many devices
    std::optional<Width> width;
    std::optional<Speed> speed;
    std::string rate_source;  ///< where width/speed came from: "--expect FILE", "--plan FILE"
    std::map<std::string, uint64_t> counter_rise;  ///< allowed rise per counter
    std::vector<PlannedCable> cables;              ///< from --plan
    std::string cable_source;                      ///< "--plan FILE"
    std::string host;  ///< this host as a plan names it (the node name health reports)
};

/// The ends of the plan's links that carry a cable, for check_planned_cables.
std::vector<PlannedCable> planned_cables(const Plan& plan);

/// Reads an --expect file; errors are "file:line:col: what", code 2.
Result<HealthExpect> load_health_expect(const std::string& path);
Result<HealthExpect> parse_health_expect(const std::string& text, const std::string& origin);

}  // namespace fabscope::host
