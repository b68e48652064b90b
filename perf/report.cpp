#include "perf/report.h"

namespace fabscope::perf {

nlohmann::json perf_report_to_json(const PerfRunMeta& meta, const std::vector<TestResult>& results,
                                   const std::vector<PerfFinding>& findings) {
    nlohmann::json doc{{"format", "fabscope-perf"},
                       {"version", 1},
                       {"started", meta.started},
                       {"device", meta.device},
                       {"port", meta.port},
                       {"degraded_at", meta.degraded_at},
                       {"results", nlohmann::json::array()},
                       {"findings", nlohmann::json::array()}};
    for (const TestResult& r : results) doc["results"].push_back(result_to_json(r));
    for (const PerfFinding& f : findings) doc["findings"].push_back(perf_finding_to_json(f));
    return doc;
}

}  // namespace fabscope::perf
