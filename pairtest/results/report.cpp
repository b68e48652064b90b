#include "pairtest/results/report.h"

#include <fmt/format.h>

#include "model/json_io.h"

namespace fabscope::perf {

Result<PerfReport> perf_report_from_json(const nlohmann::json& j) {
    // Looked at before anything is read, without trusting their types: a
    // "format" that is a number must be "not a report", not an exception.
    auto format = j.is_object() ? j.find("format") : j.end();
    if (!j.is_object() || format == j.end() || *format != "fabscope-perf") {
        return make_error("not a fabscope perf report (no \"format\": \"fabscope-perf\")");
    }
    auto version = j.find("version");
    if (version == j.end() || !version->is_number_integer() || *version != 1) {
        return make_error(
            fmt::format("perf report version {} is not supported (this fabscope reads version 1)",
                        version == j.end() ? std::string("(none)") : version->dump()));
    }
    return json_io::guarded([&]() -> Result<PerfReport> {
        PerfReport r;
        r.meta.started = json_io::get_string(j, "started", "");
        r.meta.host = json_io::get_string(j, "host", "");
        r.meta.device = json_io::get_string(j, "device", "");
        r.meta.port = json_io::get_uint<int>(j, "port", 1);
        r.meta.degraded_at = json_io::get_double(j, "degraded_at", 0.7);
        r.meta.complete = json_io::get_bool(j, "complete", true);
        for (const nlohmann::json& x : json_io::get_array(j, "results"))
            r.results.push_back(result_from_json(x));
        return r;
    });
}

Result<PerfReport> load_perf_report(const std::string& path) {
    return json_io::load_file(path, perf_report_from_json);
}

nlohmann::json perf_report_to_json(const PerfRunMeta& meta, const std::vector<TestResult>& results,
                                   const std::vector<PerfFinding>& findings) {
    nlohmann::json doc{{"format", "fabscope-perf"},
                       {"version", 1},
                       {"started", meta.started},
                       {"host", meta.host},
                       {"device", meta.device},
                       {"port", meta.port},
                       {"degraded_at", meta.degraded_at},
                       {"complete", meta.complete},
                       {"results", nlohmann::json::array()},
                       {"findings", nlohmann::json::array()}};
    for (const TestResult& r : results) doc["results"].push_back(result_to_json(r));
    for (const PerfFinding& f : findings) doc["findings"].push_back(perf_finding_to_json(f));
    return doc;
}

}  // namespace fabscope::perf
