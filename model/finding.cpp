#include "model/finding.h"

#include "model/json_io.h"
#include "model/port_label.h"

namespace fabscope {

Finding make_finding(std::string kind, Severity severity, std::string summary,
                     std::vector<PortRef> where, nlohmann::json evidence) {
    return Finding{std::move(kind), severity, std::move(summary), std::move(where),
                   std::move(evidence)};
}

std::string_view name(Severity s) {
    switch (s) {
        case Severity::Info: return "info";
        case Severity::Warning: return "warning";
        case Severity::Error: return "error";
    }
    return "?";
}

std::optional<Severity> severity_named(std::string_view s) {
    for (Severity v : {Severity::Info, Severity::Warning, Severity::Error}) {
        if (s == name(v)) return v;
    }
    return std::nullopt;
}

Severity severity_from_json(const nlohmann::json& v) {
    if (auto s = v.is_string() ? severity_named(v.get<std::string>()) : std::nullopt) return *s;
    json_io::fail(v, "must be one of info, warning, error");
}

nlohmann::json finding_to_json(const Fabric& f, const Finding& finding) {
    nlohmann::json where = nlohmann::json::array();
    for (const PortRef& r : finding.where) where.push_back(to_json(port_label(f, r)));
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
