#pragma once
// A finding as a report shows it, whichever result it came from (a
// validation, perf reports, a congestion report), and its reader.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/finding.h"
#include "model/port_label.h"

namespace fabscope {

/// A finding as a report shows it: where it is, by name as well as by port.
struct ReportFinding {
    std::string source;  ///< "validation", "perf" or "congestion"
    std::string kind;
    Severity severity = Severity::Warning;
    std::string summary;
    std::vector<PortRef> where;
    std::vector<PortLabel> labels;  ///< the same ports, named
    nlohmann::json evidence = nlohmann::json::object();
};

/// Reads a port label ({"node", "node_guid", "port", "lid"}). Throws the
/// json_io errors: call inside json_io::guarded.
PortLabel port_label_from_json(const nlohmann::json& j);

/// Reads one finding of a result document (snapshot.schema.json's
/// "finding"). Throws the json_io errors: call inside json_io::guarded.
ReportFinding report_finding_from_json(const nlohmann::json& x, std::string source);

}  // namespace fabscope
