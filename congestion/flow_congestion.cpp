#include "congestion/flow_congestion.h"

#include "congestion/roce_detectors.h"
#include "model/json_io.h"

namespace fabscope {
namespace {

CounterMap deltas_of(const nlohmann::json& counters, const char* side) {
    CounterMap out;
    if (!counters.is_object()) return out;
    auto it = counters.find(side);
    if (it == counters.end() || !it->is_object()) return out;
    for (const auto& [name, v] : it->items()) {
        if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0))
            out[name] = v.get<uint64_t>();
    }
    return out;
}

}  // namespace

std::vector<Finding> test_congestion(const nlohmann::json& counters, const TestEnds& ends,
                                     double seconds, const RoceLimits& t) {
    if (seconds <= 0) return {};
    std::vector<RoceChange> sides;
    sides.push_back(roce_change_from_deltas(ends.local_host, ends.local_device,
                                            deltas_of(counters, "local"), seconds));
    sides.push_back(roce_change_from_deltas(ends.remote_host, ends.remote_device,
                                            deltas_of(counters, "remote"), seconds));
    return detect_roce(sides, {}, t);
}

nlohmann::json test_congestion_to_json(const std::vector<Finding>& f) {
    nlohmann::json out = nlohmann::json::array();
    for (const Finding& x : f) {
        out.push_back({{"kind", x.kind},
                       {"severity", name(x.severity)},
                       {"summary", x.summary},
                       {"evidence", x.evidence}});
    }
    return out;
}

std::vector<Finding> test_congestion_from_json(const nlohmann::json& j) {
    if (!j.is_array()) json_io::fail(j, "must be an array");
    if (j.size() > kMaxTestCongestion) json_io::fail(j, "has more than 64 findings");
    std::vector<Finding> out;
    for (const nlohmann::json& x : j) {
        Finding f;
        f.kind = json_io::get_string(x, "kind");
        f.severity = severity_from_json(json_io::get(x, "severity"));
        f.summary = json_io::get_string(x, "summary");
        f.evidence = json_io::get_object(x, "evidence");
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace fabscope
