#pragma once
// A congestion report (docs/congestion.schema.json, what `fabscope congestion
// --json` writes) read back for `fabscope report`: the hottest ports, the
// congestion trees root first, and the findings. Plain data; the analysis
// that made it lives in congestion/ and is not needed to show it.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/port_label.h"
#include "reports/report_finding.h"
#include "util/result.h"

namespace fabscope {

/// A port's PortXmitWait over the measured interval.
struct CongestionPort {
    PortLabel label;
    double share = 0;  ///< of the interval spent waiting with data to send
    uint64_t delta_ticks = 0;
    double interval_s = 0;
    bool cleared = false;          ///< the counter was cleared: delta_ticks is a lower bound
    std::vector<PortLabel> chain;  ///< a victim's: from it down to the root, both included
};

struct CongestionTreeDoc {
    CongestionPort root;
    std::string cause;  ///< "slow_receiver", "bottleneck_link", "loop"
    std::vector<CongestionPort> victims;
};

struct CongestionDoc {
    std::string started;
    std::string fabric_from;
    int round = 1;
    double interval_s = 0;
    size_t ports_read = 0;
    size_t ports_unanswered = 0;
    double warn = 0;     ///< the share a tree starts at (0: not given)
    std::string result;  ///< "pass", "fail", "interrupted"
    bool interrupted = false;
    std::vector<CongestionPort> hottest;
    std::vector<CongestionTreeDoc> trees;
    std::vector<ReportFinding> findings;  ///< source "congestion"
};

/// What a port is in a congestion report: "root", "victim" or "none".
struct CongestionRow {
    CongestionPort port;
    std::string role;
    std::string root;  ///< a victim's root, "leaf03[2]"
};
/// Every port the document names (the trees' roots and victims, then the
/// hottest ports in no tree), once each, roots first.
std::vector<CongestionRow> congestion_rows(const CongestionDoc& d);

/// Reads a congestion document; errors name the JSON path of the bad value.
Result<CongestionDoc> congestion_doc_from_json(const nlohmann::json& j);

}  // namespace fabscope
