#pragma once
// An incast run's report (docs/mesh-incast.schema.json, what `fabscope mesh
// run --pattern incast -o` writes) read back for `fabscope report`: latency
// under load (the probe alone and during the incast, the rise), the senders'
// bandwidth, the findings and the run's problems. Plain data; the analysis
// that made it lives in mesh/incast_report.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reports/report_finding.h"
#include "util/result.h"

namespace fabscope {

struct IncastProbeDoc {
    bool measured = false;
    std::string error;
    size_t samples = 0;
    double median_us = 0;
    double p99_us = 0;
};

struct IncastFlowDoc {
    std::string src_host;
    bool measured = false;
    bool ok = false;
    std::string error;
    double avg_gbps = 0;
    double min_window_gbps = 0;
};

/// A rank that went missing, a flow or probe that failed.
struct IncastProblemDoc {
    std::string kind;  ///< "rank-gone", "probe-failed", ...
    std::string host;
    std::string message;
};

struct IncastDoc {
    std::string status;  ///< "complete", "running", "interrupted", "aborted"
    std::string phase;
    std::string result;  ///< "pass", "fail", "interrupted"
    double wall_seconds = 0;
    std::string receiver;
    std::string prober;
    size_t probe_size = 0;  ///< bytes per READ
    size_t write_size = 0;  ///< bytes per WRITE of the senders
    IncastProbeDoc idle;
    IncastProbeDoc loaded;
    std::optional<double> median_rise_us;
    std::optional<double> p99_rise_us;
    std::vector<IncastFlowDoc> flows;
    double senders_gbps = 0;
    size_t hosts_read = 0;  ///< hosts whose counters were read over the loaded interval
    std::vector<ReportFinding> findings;  ///< source "incast"
    std::vector<IncastProblemDoc> problems;
};

/// Reads an incast report; errors name the JSON path of the bad value.
Result<IncastDoc> incast_doc_from_json(const nlohmann::json& j);

}  // namespace fabscope
