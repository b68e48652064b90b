// Reading an incast report back, value by value (the json_io getters name
// the path of a bad one).

#include "reports/incast_doc.h"

#include <fmt/format.h>

#include <cmath>

#include "model/json_io.h"
#include "reports/run_json.h"

namespace fabscope {
namespace {

using json = nlohmann::json;

std::optional<double> rise(const json& j, const char* key) {
    const json& v = json_io::get(j, key);
    if (v.is_null()) return std::nullopt;
    double x = json_io::get_double(j, key);
    if (!std::isfinite(x)) json_io::fail(v, "must be a finite number or null");
    return x;
}

IncastProbeDoc probe_from(const json& j) {
    IncastProbeDoc p;
    p.measured = json_io::get_bool(j, "measured", false);
    p.error = json_io::get_string(j, "error", "");
    p.samples = json_io::get_uint<size_t>(j, "samples");
    p.median_us = non_negative(j, "median_us");
    p.p99_us = non_negative(j, "p99_us");
    return p;
}

std::string host_of(const json& ref) {
    return json_io::get_string(ref, "host");
}

}  // namespace

Result<IncastDoc> incast_doc_from_json(const json& j) {
    auto format = j.is_object() ? j.find("format") : j.end();
    if (format == j.end() || *format != "fabscope-mesh-incast")
        return make_error("not a fabscope incast report");
    if (auto v = check_version_1(j, "incast report"); !v) return v.error();
    return json_io::guarded([&]() -> Result<IncastDoc> {
        IncastDoc d;
        d.status = run_status(j);
        d.phase = json_io::get_string(j, "phase", "");
        d.result = json_io::get_string(j, "result");
        if (d.result != "pass" && d.result != "fail" && d.result != "interrupted")
            json_io::fail(j.at("result"), "must be one of pass, fail, interrupted");
        d.wall_seconds = non_negative(j, "wall_seconds");
        d.receiver = host_of(json_io::get_object(j, "receiver"));
        d.prober = host_of(json_io::get_object(j, "prober"));
        d.write_size = json_io::get_uint<uint32_t>(json_io::get_object(j, "spec"), "size");
        d.probe_size = json_io::get_uint<uint32_t>(json_io::get_object(j, "probe"), "size");
        const json& latency = json_io::get_object(j, "latency");
        d.idle = probe_from(json_io::get_object(latency, "idle"));
        d.loaded = probe_from(json_io::get_object(latency, "loaded"));
        d.median_rise_us = rise(latency, "median_rise_us");
        d.p99_rise_us = rise(latency, "p99_rise_us");
        for (const json& f : json_io::get_array(j, "flows")) {
            IncastFlowDoc x;
            x.src_host = json_io::get_string(f, "src_host");
            x.measured = json_io::get_bool(f, "measured", false);
            x.ok = json_io::get_bool(f, "ok", false);
            x.error = json_io::get_string(f, "error", "");
            x.avg_gbps = non_negative(f, "avg_gbps");
            x.min_window_gbps = non_negative(f, "min_window_gbps");
            d.flows.push_back(std::move(x));
        }
        d.senders_gbps = non_negative(j, "senders_gbps");
        for (const json& c : json_io::get_array(j, "congestion")) {
            if (json_io::get_string(c, "error", "").empty()) ++d.hosts_read;
        }
        for (const json& x : json_io::get_array(j, "findings"))
            d.findings.push_back(report_finding_from_json(x, "incast"));
        for (const json& p : json_io::get_array(j, "problems")) {
            IncastProblemDoc x;
            x.kind = json_io::get_string(p, "kind");
            const json& host = json_io::get(p, "host");
            if (!host.is_null()) x.host = json_io::get_string(p, "host");
            x.message = json_io::get_string(p, "message");
            d.problems.push_back(std::move(x));
        }
        return d;
    });
}

}  // namespace fabscope
