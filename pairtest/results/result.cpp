#include "pairtest/results/result.h"

#include "congestion/flow_congestion.h"
#include "model/json_io.h"

namespace fabscope::perf {

nlohmann::json result_to_json(const TestResult& r) {
    nlohmann::json j{{"test", r.spec.name()},
                     {"spec", spec_to_json(r.spec)},
                     {"peer", r.peer},
                     {"peer_host", r.peer_host},
                     {"ok", r.ok},
                     {"error", r.error},
                     {"seconds", r.seconds},
                     {"iterations", r.iterations},
                     {"bytes", r.bytes},
                     {"counters", r.counters},
                     {"congestion", test_congestion_to_json(r.congestion)}};
    if (!r.caps.empty()) j["caps"] = r.caps;
    if (!r.path.is_null()) j["path"] = r.path;
    if (r.spec.measure == Measure::Bandwidth) {
        j["bandwidth"] = {{"avg_gbps", r.avg_gbps},
                          {"peak_gbps", r.peak_gbps},
                          {"min_window_gbps", r.min_window_gbps},
                          {"avg_MBps", r.avg_gbps * 1e3 / 8},
                          {"msg_rate_mpps", r.msg_rate_mpps}};
    } else {
        const LatencyStats& l = r.latency;
        j["latency_us"] = {{"min", l.min_us},     {"median", l.median_us}, {"p99", l.p99_us},
                           {"p99.9", l.p999_us},  {"max", l.max_us},       {"mean", l.mean_us},
                           {"samples", l.samples}};
    }
    return j;
}

TestResult result_from_json(const nlohmann::json& j) {
    TestResult r;
    r.spec = spec_from_json(json_io::get_object(j, "spec"));
    r.peer = json_io::get_string(j, "peer");
    r.peer_host = json_io::get_string(j, "peer_host", "");
    r.ok = json_io::get_bool(j, "ok", false);
    r.error = json_io::get_string(j, "error", "");
    r.seconds = json_io::get_double(j, "seconds", 0);
    r.iterations = json_io::get_uint<uint64_t>(j, "iterations", 0);
    r.bytes = json_io::get_uint<uint64_t>(j, "bytes", 0);
    if (j.contains("counters")) r.counters = json_io::get_object(j, "counters");
    if (j.contains("congestion")) r.congestion = test_congestion_from_json(j["congestion"]);
    if (j.contains("path")) r.path = json_io::get_object(j, "path");
    if (j.contains("caps")) {
        for (const nlohmann::json& c : json_io::get_array(j, "caps")) {
            if (!c.is_string()) json_io::fail(c, "must be a string");
            r.caps.push_back(c.get<std::string>());
        }
    }
    if (r.spec.measure == Measure::Bandwidth && j.contains("bandwidth")) {
        const nlohmann::json& b = json_io::get_object(j, "bandwidth");
        r.avg_gbps = json_io::get_double(b, "avg_gbps");
        r.peak_gbps = json_io::get_double(b, "peak_gbps", 0);
        r.min_window_gbps = json_io::get_double(b, "min_window_gbps", 0);
        r.msg_rate_mpps = json_io::get_double(b, "msg_rate_mpps", 0);
    } else if (r.spec.measure == Measure::Latency && j.contains("latency_us")) {
        const nlohmann::json& l = json_io::get_object(j, "latency_us");
        r.latency.min_us = json_io::get_double(l, "min", 0);
        r.latency.median_us = json_io::get_double(l, "median");
        r.latency.p99_us = json_io::get_double(l, "p99", 0);
        r.latency.p999_us = json_io::get_double(l, "p99.9", 0);
        r.latency.max_us = json_io::get_double(l, "max", 0);
        r.latency.mean_us = json_io::get_double(l, "mean", 0);
        r.latency.samples = json_io::get_uint<uint64_t>(l, "samples", 0);
    } else if (r.ok) {
        json_io::fail(j, r.spec.measure == Measure::Bandwidth
                             ? "an ok bandwidth result has no \"bandwidth\""
                             : "an ok latency result has no \"latency_us\"");
    }
    return r;
}

}  // namespace fabscope::perf
