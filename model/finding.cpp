#include "model/finding.h"

namespace fabscope {

std::string_view name(Severity s) {
    switch (s) {
        case Severity::Info: return "info";
        case Severity::Warning: return "warning";
        case Severity::Error: return "error";
    }
    return "?";
}

nlohmann::json finding_to_json(const Fabric& f, const Finding& finding) {
    nlohmann::json where = nlohmann::json::array();
    for (const PortRef& r : finding.where) {
        const Node* n = f.node(r.node);
        const Port* p = f.port(r);
        where.push_back({{"node", n ? n->description : std::string()},
                         {"node_guid", format_guid(r.node)},
                         {"port", r.port},
                         {"lid", p ? p->lid : (n ? n->lid() : Lid{0})}});
    }
    return {{"kind", finding.kind},
            {"severity", name(finding.severity)},
            {"summary", finding.summary},
            {"where", std::move(where)},
            {"evidence", finding.evidence}};
}

nlohmann::json findings_to_json(const Fabric& f, const std::vector<Finding>& findings) {
    nlohmann::json a = nlohmann::json::array();
    for (const Finding& x : findings) a.push_back(finding_to_json(f, x));
    return a;
}

}  // namespace fabscope
