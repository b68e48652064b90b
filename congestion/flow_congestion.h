#pragma once
// The congestion findings of one test's interval: the RoCE detectors
// (congestion/roce_detectors.h) over what both ends' devices' hw_counters
// moved while the test ran. A test reads its own device's counters only
// (no ethtool statistics, no DCB settings: `fabscope congestion` reads
// those), so these are the ECN/CNP, collapse and loss detectors.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/finding.h"
#include "model/thresholds.h"

namespace fabscope {

/// Who the two sides of a test are, as the findings name them.
struct TestEnds {
    std::string local_host;
    std::string local_device;  ///< "mlx5_0/1"
    std::string remote_host;
    std::string remote_device;
};

/// `counters` is a result's {"local": {name: delta}, "remote": {...}} (the
/// remote side's from its own message: entries that are not unsigned
/// integers are left out). `seconds`: the interval the counters span.
std::vector<Finding> test_congestion(const nlohmann::json& counters, const TestEnds& ends,
                                     double seconds, const RoceLimits& t);

/// A result's "congestion" array and back; at most `kMaxTestCongestion`
/// entries are read (throws nlohmann errors with the path of a bad value).
inline constexpr size_t kMaxTestCongestion = 64;
nlohmann::json test_congestion_to_json(const std::vector<Finding>& f);
std::vector<Finding> test_congestion_from_json(const nlohmann::json& j);

}  // namespace fabscope
