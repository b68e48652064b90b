#include "reports/report_finding.h"

#include "model/json_io.h"

namespace fabscope {

PortLabel port_label_from_json(const nlohmann::json& j) {
    PortLabel l;
    l.node = json_io::get_string(j, "node", "");
    l.node_guid = json_io::get_guid(j, "node_guid", 0);
    l.port = json_io::get_uint<uint8_t>(j, "port", 0);
    l.lid = json_io::get_uint<Lid>(j, "lid", 0);
    return l;
}

ReportFinding report_finding_from_json(const nlohmann::json& x, std::string source) {
    ReportFinding f;
    f.source = std::move(source);
    f.kind = json_io::get_string(x, "kind");
    f.severity = severity_from_json(json_io::get(x, "severity"));
    f.summary = json_io::get_string(x, "summary", "");
    if (x.contains("where")) {
        for (const nlohmann::json& w : json_io::get_array(x, "where")) {
            f.labels.push_back(port_label_from_json(w));
            f.where.push_back({f.labels.back().node_guid, f.labels.back().port});
        }
    }
    if (x.contains("evidence")) f.evidence = json_io::get_object(x, "evidence");
    return f;
}

}  // namespace fabscope
