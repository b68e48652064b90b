#include "reports/cables_doc.h"

#include <fmt/format.h>

#include "model/json_io.h"

namespace fabscope {
namespace {

using nlohmann::json;

constexpr size_t kMaxDevices = 256;
constexpr size_t kMaxPorts = 64;
constexpr size_t kMaxLanes = 16;
constexpr size_t kMaxFindings = 1024;
constexpr size_t kMaxFlags = 64;

std::optional<double> number(const json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return json_io::get_double(j, key);
}

/// The weakest lane of `key` ("rx_power_mw"): its power and lane number.
void weakest(const json& lanes, const char* key, std::optional<double>& mw, int& lane) {
    for (const json& l : lanes) {
        auto v = number(l, key);
        if (!v) continue;
        if (!mw || *v < *mw) {
            mw = v;
            lane = static_cast<int>(json_io::get_uint_between(l, "lane", 1, kMaxLanes));
        }
    }
}

void read_module(const json& m, CableRow& r) {
    r.status = json_io::get_string(m, "status");
    r.detail = json_io::get_string(m, "detail", "");
    if (!m.contains("vendor")) return;
    r.type = json_io::get_string(m, "type", "");
    r.spec = json_io::get_string(m, "spec", "");
    r.vendor = json_io::get_string(m, "vendor");
    r.part_number = json_io::get_string(m, "part_number", "");
    r.revision = json_io::get_string(m, "revision", "");
    r.serial = json_io::get_string(m, "serial", "");
    r.media = json_io::get_string(m, "media", "");
    r.length_m = number(m, "length_m");
    r.temperature_c = number(m, "temperature_c");
    r.supply_v = number(m, "supply_v");
    if (m.contains("lanes")) {
        const json& lanes = json_io::get_array(m, "lanes");
        if (lanes.size() > kMaxLanes) json_io::fail(lanes, "has more than 16 lanes");
        weakest(lanes, "rx_power_mw", r.min_rx_mw, r.min_rx_lane);
        weakest(lanes, "tx_power_mw", r.min_tx_mw, r.min_tx_lane);
    }
    if (m.contains("flags")) {
        const json& flags = json_io::get_array(m, "flags");
        if (flags.size() > kMaxFlags) json_io::fail(flags, "has more than 64 flags");
        for (const json& f : flags) {
            if (!f.is_string()) json_io::fail(f, "is not a string");
            r.flags.push_back(f.get<std::string>());
        }
    }
}

/// Every port of every device of the inventory, with its module.
std::vector<CableRow> read_ports(const std::string& host, const json& inventory) {
    std::vector<CableRow> rows;
    const json& devices = json_io::get_array(inventory, "devices");
    if (devices.size() > kMaxDevices) json_io::fail(devices, "has more than 256 devices");
    for (const json& d : devices) {
        const json& ports = json_io::get_array(d, "ports");
        if (ports.size() > kMaxPorts) json_io::fail(ports, "has more than 64 ports");
        for (const json& p : ports) {
            CableRow r;
            r.host = host;
            r.device = json_io::get_string(d, "name");
            r.port = static_cast<int>(json_io::get_uint_between(p, "port", 1, 255));
            if (p.contains("netdev") && p.at("netdev").is_object())
                r.netdev = json_io::get_string(p.at("netdev"), "name", "");
            if (p.contains("module")) read_module(json_io::get_object(p, "module"), r);
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

}  // namespace

bool looks_like_health(const json& j) {
    return j.is_object() && j.value("format", json()) == "fabscope-health";
}

Result<HostCables> host_cables_from_json(const json& j) {
    return json_io::guarded([&]() -> Result<HostCables> {
        HostCables out;
        out.host = json_io::get_string(j, "node");
        out.rows = read_ports(out.host, json_io::get_object(j, "inventory"));
        const json& findings = json_io::get_array(j, "findings");
        if (findings.size() > kMaxFindings) json_io::fail(findings, "has more than 1,024 findings");
        for (const json& f : findings) {
            if (json_io::get_string(f, "check") != "module") continue;
            const std::string sev = json_io::get_string(f, "severity");
            const auto severity = severity_named(sev);
            if (!severity) json_io::fail(f.at("severity"), "is not info, warning or error");
            const std::string subject = json_io::get_string(f, "subject");
            const std::string message = json_io::get_string(f, "message");
            // Health names a port "mlx5_0/1" (host/health_state.h's port_key).
            for (CableRow& r : out.rows) {
                if (fmt::format("{}/{}", r.device, r.port) != subject) continue;
                r.issues.push_back(message);
                r.severity = std::max(r.severity, *severity);
            }
            ReportFinding rf;
            rf.source = "health";
            rf.kind = "module";
            rf.severity = *severity;
            rf.summary = fmt::format("{} {}", out.host, message);
            rf.evidence = {{"host", out.host}, {"port", subject}};
            out.findings.push_back(std::move(rf));
        }
        return out;
    });
}

}  // namespace fabscope
