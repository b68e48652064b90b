#include "host/health_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace fabscope::host {
namespace {

std::string port_name(const RdmaDevice& d, const HostPort& p) {
    return port_key(d.name, p.port);
}

std::string rate_name(std::optional<Width> w, std::optional<Speed> s) {
    std::string out;
    if (w) out += name(*w);
    if (s) {
        if (!out.empty()) out += ' ';
        out += name(*s);
    }
    return out;
}

HealthFinding error(std::string check, std::string subject, std::string message) {
    return {std::move(check), HealthSeverity::Error, std::move(subject), std::move(message)};
}

}  // namespace

std::string_view name(HealthSeverity s) {
    return s == HealthSeverity::Error ? "error" : "warning";
}

const std::vector<std::string>& error_counters() {
    static const std::vector<std::string> k{"symbol_error",
                                            "link_error_recovery",
                                            "link_downed",
                                            "port_rcv_errors",
                                            "port_rcv_remote_physical_errors",
                                            "local_link_integrity_errors",
                                            "excessive_buffer_overrun_errors"};
    return k;
}

std::vector<HealthFinding> check_devices(const HostInventory& inv, const HealthExpect& e) {
    std::vector<HealthFinding> out;
    std::set<std::string> present;
    for (const auto& d : inv.devices) present.insert(d.name);
    for (const auto& want : e.devices) {
        if (!present.count(want))
            out.push_back(error("devices", want, fmt::format("RDMA device {} is missing", want)));
    }
    if (static_cast<int>(inv.devices.size()) < e.min_devices) {
        out.push_back(error("devices", "host",
                            inv.devices.empty()
                                ? std::string("no RDMA device")
                                : fmt::format("{} RDMA device(s), expected at least {}",
                                              inv.devices.size(), e.min_devices)));
    }
    for (const auto& d : inv.devices) {
        if (d.ports.empty())
            out.push_back(error("devices", d.name, fmt::format("{} has no ports", d.name)));
    }
    return out;
}

std::vector<HealthFinding> check_port_state(const HostInventory& inv) {
    std::vector<HealthFinding> out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            if (p.active()) continue;
            std::string state = p.state.empty() ? "unknown" : p.state;
            std::string phys = p.phys_state.empty() ? "" : fmt::format(" ({})", p.phys_state);
            out.push_back(
                error("port_state", port_name(d, p),
                      fmt::format("{} port {} is {}{}, not ACTIVE", d.name, p.port, state, phys)));
        }
    }
    return out;
}

ExpectedRate majority_rate(const HostInventory& inv) {
    std::map<std::pair<Width, Speed>, int> count;
    int ports = 0;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            if (!p.active() || !p.width || !p.speed) continue;
            ++count[{*p.width, *p.speed}];
            ++ports;
        }
    }
    ExpectedRate r;
    int best = 0;
    bool tie = false;
    for (const auto& [rate, n] : count) {
        if (n > best) {
            best = n;
            r.width = rate.first;
            r.speed = rate.second;
            tie = false;
        } else if (n == best) {
            tie = true;
        }
    }
    if (tie || best == 0) return {};
    r.source = fmt::format("majority of {} active port(s)", ports);
    return r;
}

std::vector<HealthFinding> check_port_rate(const HostInventory& inv, const ExpectedRate& want) {
    std::vector<HealthFinding> out;
    if (!want.width && !want.speed) return out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            if (!p.active()) continue;  // check_port_state names it
            if (!p.width || !p.speed) {
                out.push_back(
                    error("port_rate", port_name(d, p),
                          fmt::format("{} port {}: rate unknown (\"{}\"), expected {}", d.name,
                                      p.port, p.rate_text, rate_name(want.width, want.speed))));
                continue;
            }
            bool narrow = want.width && lanes(*p.width) < lanes(*want.width);
            bool slow = want.speed && lane_data_gbps(*p.speed) < lane_data_gbps(*want.speed);
            if (!narrow && !slow) continue;
            out.push_back(
                error("port_rate", port_name(d, p),
                      fmt::format("{} port {} at {} ({} Gb/s), expected {} ({})", d.name, p.port,
                                  rate_name(p.width, p.speed), p.rate_gbps.value_or(0),
                                  rate_name(want.width, want.speed), want.source)));
        }
    }
    return out;
}

std::vector<HealthFinding> check_pcie(const HostInventory& inv) {
    std::vector<HealthFinding> out;
    for (const auto& d : inv.devices) {
        if (!d.pci) continue;
        const PciLink& l = *d.pci;
        if (l.current_width && l.max_width && *l.current_width < *l.max_width) {
            out.push_back(error("pcie", d.name,
                                fmt::format("{} PCIe {} downtrained to x{} (max x{})", d.name,
                                            l.address, *l.current_width, *l.max_width)));
        }
        if (l.current_speed_gts && l.max_speed_gts && *l.current_speed_gts < *l.max_speed_gts) {
            out.push_back(error("pcie", d.name,
                                fmt::format("{} PCIe {} at {} GT/s (max {} GT/s)", d.name,
                                            l.address, *l.current_speed_gts, *l.max_speed_gts)));
        }
    }
    return out;
}

std::vector<HealthFinding> check_roce_gid(const HostInventory& inv) {
    std::vector<HealthFinding> out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            if (!p.roce()) continue;
            bool v2 = std::any_of(p.gids.begin(), p.gids.end(),
                                  [](const GidEntry& g) { return g.type == "RoCE v2"; });
            if (!v2)
                out.push_back(error("roce_gid", port_name(d, p),
                                    fmt::format("{} port {}: no RoCE v2 GID ({} GID(s) in the "
                                                "table)",
                                                d.name, p.port, p.gids.size())));
        }
    }
    return out;
}

std::vector<HealthFinding> check_modules(const HostInventory& inv) {
    std::vector<HealthFinding> out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            if (!p.module || !p.module->info) continue;
            const ModuleInfo& m = *p.module->info;
            const std::string which =
                fmt::format("{} port {} ({}) module {} {} {}", d.name, p.port,
                            p.netdev ? p.netdev->name : "", m.vendor, m.part_number, m.serial);
            for (const ModuleIssue& i : module_issues(m)) {
                out.push_back({"module", i.alarm ? HealthSeverity::Error : HealthSeverity::Warning,
                               port_name(d, p), fmt::format("{}: {}", which, i.what)});
            }
        }
    }
    return out;
}

namespace {

/// Whether a plan's node name is device `d` of this host.
bool names_device(const std::string& node, const HostInventory& inv, const RdmaDevice& d,
                  const std::string& host) {
    if (host.empty()) return false;
    if (node == fmt::format("{} {}", host, d.name)) return true;
    return inv.devices.size() == 1 && node == host;
}

}  // namespace

std::vector<HealthFinding> check_planned_cables(const HostInventory& inv, const HealthExpect& e) {
    std::vector<HealthFinding> out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            for (const PlannedCable& c : e.cables) {
                if (c.port != p.port || !names_device(c.node, inv, d, e.host)) continue;
                const std::string planned = fmt::format("the plan's cable {} ({})",
                                                        describe_cable(c.cable), e.cable_source);
                if (!p.module || !p.module->info) {
                    const std::string why =
                        !p.module ? (p.roce() ? "its module was not read"
                                              : "health reads the modules of RoCE ports only")
                        : p.module->detail.empty()
                            ? fmt::format("module {}", p.module->status)
                            : fmt::format("module {}: {}", p.module->status, p.module->detail);
                    out.push_back({"module", HealthSeverity::Warning, port_name(d, p),
                                   fmt::format("{} port {}: {} was not checked: {}", d.name, p.port,
                                               planned, why)});
                    continue;
                }
                const ModuleInfo& m = *p.module->info;
                CableMismatch x = cable_mismatch(c.cable, m);
                if (x.differences.empty()) continue;
                out.push_back(
                    {"module", x.wrong_part ? HealthSeverity::Error : HealthSeverity::Warning,
                     port_name(d, p),
                     fmt::format("{} port {} ({}) module {} {} {}: not {}: {}", d.name, p.port,
                                 p.netdev ? p.netdev->name : "", m.vendor, m.part_number, m.serial,
                                 planned, fmt::join(x.differences, "; "))});
            }
        }
    }
    return out;
}

std::vector<HealthFinding> check_ib_sm(const HostInventory& inv) {
    std::vector<HealthFinding> out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            if (p.link_layer != "InfiniBand" || !p.active()) continue;
            if (!p.sm_lid || *p.sm_lid == 0) {
                out.push_back(
                    error("ib_sm", port_name(d, p),
                          fmt::format("{} port {}: no subnet manager (SM LID 0)", d.name, p.port)));
            } else if (!p.lid || *p.lid == 0) {
                out.push_back(error("ib_sm", port_name(d, p),
                                    fmt::format("{} port {}: no LID assigned", d.name, p.port)));
            }
        }
    }
    return out;
}

std::vector<HealthFinding> check_counters(const HostInventory& inv, const CounterState& before,
                                          const HealthExpect& e) {
    std::vector<HealthFinding> out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            auto prev = before.ports.find(port_name(d, p));
            if (prev == before.ports.end()) continue;
            std::vector<std::string> rose;
            for (const auto& c : error_counters()) {
                auto now = p.counters.find(c);
                auto then = prev->second.find(c);
                if (now == p.counters.end() || then == prev->second.end()) continue;
                if (now->second < then->second) continue;  // cleared since: a new baseline
                uint64_t rise = now->second - then->second;
                auto allowed = e.counter_rise.find(c);
                if (rise > (allowed == e.counter_rise.end() ? 0 : allowed->second))
                    rose.push_back(fmt::format("{} +{}", c, rise));
            }
            if (rose.empty()) continue;
            std::string since = before.written.empty() ? "" : " since " + before.written;
            out.push_back(error("counters", port_name(d, p),
                                fmt::format("{} port {}: error counters rose{}: {}", d.name, p.port,
                                            since, fmt::join(rose, ", "))));
        }
    }
    return out;
}

std::vector<HealthFinding> inventory_findings(const HostInventory& inv) {
    std::vector<HealthFinding> out;
    for (const auto& p : inv.problems)
        out.push_back({"inventory", HealthSeverity::Warning, p.file,
                       fmt::format("{}: {}", p.file, p.message)});
    return out;
}

bool HealthResult::healthy() const {
    return std::none_of(findings.begin(), findings.end(),
                        [](const HealthFinding& f) { return f.severity == HealthSeverity::Error; });
}

std::string HealthResult::reason() const {
    std::vector<const HealthFinding*> errors;
    for (const auto& f : findings) {
        if (f.severity == HealthSeverity::Error) errors.push_back(&f);
    }
    if (errors.empty()) return "";
    if (errors.size() == 1) return errors[0]->message;
    return fmt::format("{} (+{} more)", errors[0]->message, errors.size() - 1);
}

HealthResult check_health(const HostInventory& inv, const HealthExpect& e,
                          const std::optional<CounterState>& before) {
    HealthResult r;
    if (e.width || e.speed) {
        r.expected = {e.width, e.speed, e.rate_source};
    } else {
        r.expected = majority_rate(inv);
    }
    auto add = [&](std::vector<HealthFinding> f) {
        r.findings.insert(r.findings.end(), std::make_move_iterator(f.begin()),
                          std::make_move_iterator(f.end()));
    };
    add(check_devices(inv, e));
    add(check_port_state(inv));
    add(check_port_rate(inv, r.expected));
    add(check_pcie(inv));
    add(check_roce_gid(inv));
    add(check_ib_sm(inv));
    add(check_modules(inv));
    add(check_planned_cables(inv, e));
    if (before) add(check_counters(inv, *before, e));
    if (!r.expected.width && !r.expected.speed) {
        std::set<std::string> rates;
        for (const auto& d : inv.devices) {
            for (const auto& p : d.ports) {
                if (p.active() && p.width && p.speed) rates.insert(rate_name(p.width, p.speed));
            }
        }
        if (rates.size() > 1)
            r.findings.push_back({"port_rate", HealthSeverity::Warning, "host",
                                  fmt::format("active ports run at {} and none is the majority; "
                                              "say which is right with --expect or --plan",
                                              fmt::join(rates, ", "))});
    }
    add(inventory_findings(inv));
    return r;
}

}  // namespace fabscope::host
