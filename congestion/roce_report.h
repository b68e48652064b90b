#pragma once
// One RoCE congestion measurement: the readings of this host (or of saved
// host readings) an interval apart through the RoCE detectors, and its two
// renderings: the JSON report (docs/congestion.schema.json, the same
// document the InfiniBand measurement writes, with a "roce" member) and the
// summary for people. Pure.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "congestion/roce_detectors.h"
#include "model/thresholds.h"
#include "util/term.h"

namespace fabscope {

struct RoceCongestionResult {
    double interval_s = 0;  ///< mean over the hosts
    size_t ports_read = 0;  ///< device ports with both readings
    std::vector<RoceChange> hosts;
    std::vector<Finding> findings;
    bool failed() const;  ///< any warning or error
};

/// Hosts matched by name; a host missing from `after` is a roce_unreadable
/// finding. `earlier`: the previous round's changes (for the CNP/throughput
/// detector), may be empty.
RoceCongestionResult analyse_roce(const std::vector<RoceHostReading>& before,
                                  const std::vector<RoceHostReading>& after,
                                  const std::vector<RoceChange>& earlier, const RoceLimits& t);

struct RoceMeta {
    std::string started;  ///< ISO 8601
    std::string from;     ///< "this host (sysfs /sys/class/infiniband)", "saved readings DIR"
    int round = 1;
    bool interrupted = false;
    Thresholds thresholds;
};

nlohmann::json roce_congestion_to_json(const RoceCongestionResult& r, const RoceMeta& m);
std::string render_roce_summary(const RoceCongestionResult& r, const RoceMeta& m,
                                const TextStyle& st);

}  // namespace fabscope
