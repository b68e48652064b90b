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
#include "util/result.h"

namespace fabscope::host {

inline constexpr int kHealthExpectVersion = 1;

struct HealthExpect {
    std::vector<std::string> devices;  ///< devices that must be present by name
    int min_devices = 1;               ///< at least this many devices
    std::optional<Width> width;
    std::optional<Speed> speed;
    std::string rate_source;  ///< where width/speed came from: "--expect FILE", "--plan FILE"
    std::map<std::string, uint64_t> counter_rise;  ///< allowed rise per counter
};

/// Reads an --expect file; errors are "file:line:col: what", code 2.
Result<HealthExpect> load_health_expect(const std::string& path);
Result<HealthExpect> parse_health_expect(const std::string& text, const std::string& origin);

}  // namespace fabscope::host
