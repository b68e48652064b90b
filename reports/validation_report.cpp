#include "reports/validation_report.h"

#include <fmt/format.h>

#include "model/fingerprint.h"
#include "reports/severity_tag.h"

namespace fabscope {

std::string render_validation_summary(const Validation& v, const ValidationMeta& m,
                                      const TextStyle& st, size_t max_listed) {
    size_t errors = v.count(Severity::Error);
    size_t warnings = v.count(Severity::Warning);
    size_t infos = v.count(Severity::Info);
    std::string scope = m.counter_readings == 0   ? "no counters read"
                        : m.counter_readings == 1 ? "one counter reading"
                        : m.interval_s > 0 ? fmt::format("counters over {:.1f} s", m.interval_s)
                                           : "two counter readings";
    std::string head;
    if (m.interrupted) {
        head = st.yellow("INTERRUPTED");
    } else if (v.failed()) {
        head = st.bold(st.red("FAIL"));
    } else {
        head = st.bold(st.green("PASS"));
    }
    std::string counts =
        !v.failed() ? "no problems"
                    : fmt::format("{} problem{}: {} error{}, {} warning{}", errors + warnings,
                                  errors + warnings == 1 ? "" : "s", errors, errors == 1 ? "" : "s",
                                  warnings, warnings == 1 ? "" : "s");
    std::string out = fmt::format("{}  fabscope {}: {}  ({}; {})\n", head, m.command, counts,
                                  v.checks.empty() ? "" : v.checks.front().detail, scope);
    size_t shown = 0;
    for (const Finding& f : v.findings) {
        if (shown == max_listed) break;
        out += fmt::format("  {} {}\n", severity_tag(st, f.severity), f.summary);
        ++shown;
    }
    if (v.findings.size() > shown) {
        out += fmt::format("  {} and {} more (see the JSON report)\n", st.dim("..."),
                           v.findings.size() - shown);
    }
    if (infos && !v.failed()) out += fmt::format("  ({} for information only)\n", infos);
    std::vector<std::string> checked;
    for (size_t i = 1; i < v.checks.size(); ++i) checked.push_back(v.checks[i].text());
    out += st.dim(fmt::format("Checked: {}.", fmt::join(checked, "; "))) + "\n";
    return out;
}

nlohmann::json checks_to_json(const std::vector<CheckMade>& checks) {
    nlohmann::json out = nlohmann::json::array();
    for (const CheckMade& c : checks)
        out.push_back({{"id", c.id}, {"name", c.name}, {"detail", c.detail}});
    return out;
}

nlohmann::json expected_to_json(const std::vector<ExpectedCable>& cables) {
    nlohmann::json out = nlohmann::json::array();
    for (const ExpectedCable& c : cables) out.push_back({to_json(c.a), to_json(c.b)});
    return out;
}

namespace {

std::vector<std::string> check_texts(const std::vector<CheckMade>& checks) {
    std::vector<std::string> out;
    out.reserve(checks.size());
    for (const CheckMade& c : checks) out.push_back(c.text());
    return out;
}

}  // namespace

nlohmann::json validation_to_json(const Fabric& f, const Validation& v, const ValidationMeta& m) {
    nlohmann::json doc = {{"format", "fabscope-validation"},
                          {"version", 1},
                          {"command", m.command},
                          {"started", m.started},
                          {"fabric", m.fabric_from},
                          {"interval_s", m.interval_s},
                          {"plan", m.plan},
                          {"baseline", m.baseline},
                          {"thresholds", m.thresholds},
                          {"duration_s", m.duration_s},
                          {"interrupted", m.interrupted},
                          {"result", m.interrupted ? "interrupted"
                                     : v.failed()  ? "fail"
                                                   : "pass"},
                          {"counts",
                           {{"error", v.count(Severity::Error)},
                            {"warning", v.count(Severity::Warning)},
                            {"info", v.count(Severity::Info)}}},
                          {"checks", check_texts(v.checks)},
                          {"check_list", checks_to_json(v.checks)},
                          {"expected_links", expected_to_json(v.expected)},
                          {"nodes", f.nodes().size()},
                          {"links", f.links().size()},
                          {"fabric_fingerprint", fabric_fingerprint(f)},
                          {"findings", findings_to_json(f, v.findings)}};
    if (!m.snapshot.empty()) doc["snapshot"] = m.snapshot;
    return doc;
}

}  // namespace fabscope
