#include "reports/cables_sections.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "reports/escape.h"

namespace fabscope {
namespace {

std::string opt_num(const std::optional<double>& v, const char* fmt_spec) {
    return v ? fmt::format(fmt::runtime(fmt_spec), *v) : std::string();
}

/// A lane's power in dBm ("lane 3 -2.1 dBm"), or "".
std::string lane_dbm(const std::optional<double>& mw, int lane) {
    if (!mw) return "";
    if (*mw <= 0.0001) return fmt::format("lane {} -inf dBm", lane);
    return fmt::format("lane {} {:.1f} dBm", lane, 10.0 * std::log10(*mw));
}

std::string verdict(const CableRow& r) {
    if (!r.issues.empty()) return std::string(name(r.severity));
    return r.status == "present" ? "ok" : "";
}

/// What health said of the module (its latched flags among it), without
/// the port and module the row already names: health's message is
/// "mlx5_0 port 1 (eth2) module VENDOR PN SERIAL: what".
std::string issues_text(const CableRow& r) {
    std::string out;
    for (const std::string& i : r.issues) {
        const size_t module = i.find(" module ");
        const size_t colon = module == std::string::npos ? module : i.find(": ", module);
        out += (out.empty() ? "" : "; ") + (colon == std::string::npos ? i : i.substr(colon + 2));
    }
    return out;
}

size_t modules(const ReportModel& m) {
    size_t n = 0;
    for (const HostCables& h : m.cables) {
        for (const CableRow& r : h.rows) n += r.status == "present" ? 1 : 0;
    }
    return n;
}

}  // namespace

std::string cable_port_name(const CableRow& r) {
    return fmt::format("{} {}/{}{}", r.host, r.device, r.port,
                       r.netdev.empty() ? "" : fmt::format(" ({})", r.netdev));
}

std::string cable_identity(const CableRow& r) {
    if (r.status != "present") {
        if (r.status.empty()) return "not read";
        return fmt::format("{} module{}", r.status == "none" ? "no" : r.status,
                           r.detail.empty() ? "" : ": " + r.detail);
    }
    std::string length = r.length_m ? fmt::format("{:g} m ", *r.length_m) : "";
    return fmt::format("{} {}{}{}, {}{}{}{}", r.vendor, r.part_number,
                       r.revision.empty() ? "" : " rev " + r.revision,
                       r.serial.empty() ? "" : " serial " + r.serial, length,
                       r.media.empty() ? "" : r.media + " ", r.type,
                       r.spec.empty() ? "" : " (" + r.spec + ")");
}

void add_cables(ReportModel& m) {
    if (m.cables.empty()) return;
    size_t ports = 0;
    for (HostCables& h : m.cables) {
        ports += h.rows.size();
        m.findings.insert(m.findings.end(), h.findings.begin(), h.findings.end());
    }
    const size_t held = modules(m);
    m.checks.push_back({"cables",
                        "cables and modules: identity, temperature, supply and lane power "
                        "against each module's own thresholds",
                        fmt::format("{} host{}, {} port{}, {} module{}", m.cables.size(),
                                    m.cables.size() == 1 ? "" : "s", ports, ports == 1 ? "" : "s",
                                    held, held == 1 ? "" : "s")});
}

std::string cables_html(const ReportModel& m) {
    if (m.cables.empty()) return "";
    std::string out =
        "<section id=\"cables\"><h2>Cables and modules</h2>\n<table class=\"cables\"><thead><tr>"
        "<th>Port</th><th>Verdict</th><th>Module</th><th>Temperature</th><th>Supply</th>"
        "<th>Weakest rx</th><th>Weakest tx</th><th>What it says</th></tr></thead><tbody>\n";
    for (const HostCables& h : m.cables) {
        for (const CableRow& r : h.rows) {
            const std::string v = verdict(r);
            out += fmt::format(
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
                "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                "<td>{}</td></tr>\n",
                html_escape(cable_port_name(r)),
                v == "ok" || v.empty() ? v : fmt::format("<span class=\"sev {0}\">{0}</span>", v),
                html_escape(cable_identity(r)), opt_num(r.temperature_c, "{:.1f} °C"),
                opt_num(r.supply_v, "{:.2f} V"), lane_dbm(r.min_rx_mw, r.min_rx_lane),
                lane_dbm(r.min_tx_mw, r.min_tx_lane), html_escape(issues_text(r)));
        }
    }
    return out + "</tbody></table>\n</section>\n";
}

std::string cables_md(const ReportModel& m) {
    if (m.cables.empty()) return "";
    std::string out =
        "### Cables and modules\n\n| Port | Verdict | Module | Temperature | Supply | Weakest rx "
        "| Weakest tx | What it says |\n|---|---|---|---:|---:|---|---|---|\n";
    for (const HostCables& h : m.cables) {
        for (const CableRow& r : h.rows) {
            const std::string v = verdict(r);
            out += fmt::format(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_escape(cable_port_name(r)),
                v == "ok" || v.empty() ? v : "**" + v + "**", md_escape(cable_identity(r)),
                opt_num(r.temperature_c, "{:.1f} °C"), opt_num(r.supply_v, "{:.2f} V"),
                lane_dbm(r.min_rx_mw, r.min_rx_lane), lane_dbm(r.min_tx_mw, r.min_tx_lane),
                md_escape(issues_text(r)));
        }
    }
    return out + "\n";
}

std::vector<std::string> cables_csv_header() {
    return {"Host",       "Device",    "Port",    "Netdev",    "Status", "Type",   "Vendor",
            "PartNumber", "Revision",  "Serial",  "LengthM",   "Media",  "TempC",  "SupplyV",
            "MinRxMw",    "MinRxLane", "MinTxMw", "MinTxLane", "Health", "Issues", "LatchedFlags"};
}

std::vector<std::vector<std::string>> cables_csv_rows(const ReportModel& m) {
    std::vector<std::vector<std::string>> rows;
    for (const HostCables& h : m.cables) {
        for (const CableRow& r : h.rows) {
            rows.push_back({r.host,
                            r.device,
                            std::to_string(r.port),
                            r.netdev,
                            r.status,
                            r.type,
                            r.vendor,
                            r.part_number,
                            r.revision,
                            r.serial,
                            opt_num(r.length_m, "{:g}"),
                            r.media,
                            opt_num(r.temperature_c, "{:.2f}"),
                            opt_num(r.supply_v, "{:.3f}"),
                            opt_num(r.min_rx_mw, "{:.4f}"),
                            r.min_rx_mw ? std::to_string(r.min_rx_lane) : "",
                            opt_num(r.min_tx_mw, "{:.4f}"),
                            r.min_tx_mw ? std::to_string(r.min_tx_lane) : "",
                            verdict(r),
                            issues_text(r),
                            fmt::format("{}", fmt::join(r.flags, "; "))});
        }
    }
    return rows;
}

}  // namespace fabscope
