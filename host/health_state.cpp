#include "host/health_state.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "host/sysfs_file.h"
#include "model/json_io.h"
#include "util/exit_status.h"

namespace fabscope::host {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char* kFormat = "fabscope-health-state";
constexpr int kVersion = 1;
/// A state file of a host with 64 ports and all their counters is ~100 KiB.
constexpr uint64_t kMaxStateBytes = uint64_t{4} << 20;
}  // namespace

std::string port_key(const std::string& device, int port) {
    return fmt::format("{}/{}", device, port);
}

CounterState state_of(const HostInventory& inv, const std::string& now) {
    CounterState s;
    s.written = now;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) s.ports[port_key(d.name, p.port)] = p.counters;
    }
    return s;
}

std::string state_to_text(const CounterState& s) {
    json j{{"format", kFormat}, {"version", kVersion}, {"written", s.written}};
    j["ports"] = json::object();
    for (const auto& [k, counters] : s.ports) j["ports"][k] = counters;
    return j.dump(1) + "\n";
}

Result<CounterState> parse_state(const std::string& text, const std::string& origin) {
    auto doc = json_io::parse_json_text(text, origin);
    if (!doc) return doc.error();
    auto bad = [&](const std::string& what) {
        return make_error(fmt::format("{}: not a fabscope health state file ({})", origin, what));
    };
    const json& j = *doc;
    if (!j.is_object() || j.value("format", json()) != kFormat) return bad("format");
    if (j.value("version", json()) != kVersion) return bad("version");
    CounterState s;
    if (j.contains("written") && j["written"].is_string()) s.written = j["written"];
    if (!j.contains("ports") || !j["ports"].is_object()) return bad("ports");
    for (const auto& [key, counters] : j["ports"].items()) {
        if (!counters.is_object()) return bad("ports/" + key);
        auto& out = s.ports[key];
        for (const auto& [name, v] : counters.items()) {
            if (!v.is_number_unsigned()) return bad(fmt::format("ports/{}/{}", key, name));
            out[name] = v.get<uint64_t>();
        }
    }
    return s;
}

Result<std::optional<CounterState>> load_state(const std::string& path) {
    BoundedRead r = read_bounded(path, kMaxStateBytes);
    if (!r.text) {
        if (r.error.empty()) return std::optional<CounterState>();
        return make_error(fmt::format("{}: cannot read the health state: {}", path, r.error),
                          r.err_no == EACCES ? kExitCannotRun : kExitUsage);
    }
    auto s = parse_state(*r.text, path);
    if (!s) return s.error();
    return std::optional<CounterState>(std::move(s).value());
}

Status save_state(const CounterState& s, const std::string& path) {
    fs::path dir = fs::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) fs::create_directories(dir, ec);
    if (ec) {
        return make_error(
            fmt::format("{}: cannot make the state folder: {}", dir.string(), ec.message()),
            kExitCannotRun);
    }
    std::string text = state_to_text(s);
    Status w = json_io::write_file_atomically(path, [&](std::ostream& out) { out << text; });
    if (!w) return make_error(w.error().message, kExitCannotRun);
    return Ok{};
}

std::string default_state_path(const char* xdg_state_home, const char* home, bool root) {
    if (xdg_state_home && *xdg_state_home)
        return fmt::format("{}/fabscope/health.json", xdg_state_home);
    if (root || !home || !*home) return "/var/lib/fabscope/health.json";
    return fmt::format("{}/.local/state/fabscope/health.json", home);
}

}  // namespace fabscope::host
