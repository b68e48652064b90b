#include "host/health_run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "discover/sa_self_query.h"
#include "host/health_checks.h"
#include "host/health_expect.h"
#include "host/health_json.h"
#include "host/health_sa.h"
#include "host/health_state.h"
#include "host/inventory.h"
#include "host/module_netlink.h"
#include "host/rdma_netlink.h"
#include "host/rdma_nl_merge.h"
#include "host/slurm_drain.h"
#include "host/verbs_mtu.h"
#include "model/json_io.h"
#include "model/plan.h"
#include "util/exit_status.h"
#include "util/host_name.h"
#include "util/printable.h"
#include "util/time_util.h"

namespace fabscope::host {
namespace {

namespace fs = std::filesystem;

/// The port's check filled from the SA's answer.
void take_answer(SaPathCheck& c, const SaSelfResult& r) {
    c.outcome = std::string(name(r.outcome));
    c.detail = r.detail;
    c.elapsed_ms = r.elapsed_ms;
    c.attempts = r.attempts;
    if (r.record) {
        c.slid = r.record->slid;
        c.dlid = r.record->dlid;
        c.mtu = sa::mtu_bytes(r.record->mtu);
        c.sl = r.record->sl;
        c.pkey = r.record->pkey;
    }
}

/// One SubnAdmGet(PathRecord) per InfiniBand port to the SA, to itself. A
/// second port behind an SA that did not answer is not asked again (same
/// subnet prefix and SM LID): the node's time budget is well under a second.
std::vector<SaPathCheck> query_sa_paths(const HostInventory& inv, int timeout_ms) {
    std::vector<SaPathCheck> out;
    std::map<std::string, size_t> silent;  // subnet prefix/SM LID -> the port that got no answer
    SaSelfOptions opts;
    opts.timeout = std::chrono::milliseconds(timeout_ms);
    for (const auto& t : sa_path_targets(inv)) {
        SaPathCheck c;
        c.target = t;
        std::string sa_key = fmt::format("{}/{}", t.gid.substr(0, 19), t.sm_lid);
        if (auto it = silent.find(sa_key); it != silent.end()) {
            const SaPathCheck& first = out[it->second];
            c.outcome = first.outcome;
            c.detail = fmt::format("not asked: {} port {} got no answer from the same SA",
                                   first.target.device, first.target.port);
            out.push_back(c);
            continue;
        }
        auto gid = sa::parse_gid(t.gid);
        if (!gid) continue;  // the inventory already checked it is a GID
        SaSelfTarget st{t.device, t.port, static_cast<Lid>(t.lid), static_cast<Lid>(t.sm_lid),
                        *gid};
        SaSelfResult r = query_self_path_umad(st, opts);
        take_answer(c, r);
        if (r.outcome == SaSelfResult::Outcome::NoAnswer) silent.emplace(sa_key, out.size());
        out.push_back(std::move(c));
    }
    return out;
}

/// The expectations from --expect and --plan (the plan's rate wins).
Result<HealthExpect> expectations(const HealthRequest& o) {
    HealthExpect e;
    if (!o.expect.empty()) {
        auto loaded = load_health_expect(o.expect);
        if (!loaded) return loaded.error();
        e = std::move(loaded).value();
    }
    if (!o.plan.empty()) {
        auto plan = load_plan(o.plan);
        if (!plan) return plan.error();
        e.cables = planned_cables(*plan);
        if (!plan->width && !plan->speed && e.cables.empty())
            return make_error(
                fmt::format("{}: the plan gives no link rate (expect: {{width: 4X, "
                            "speed: HDR}}) and no cable for health to check ports against",
                            o.plan));
        if (plan->width || plan->speed) {
            e.width = plan->width;
            e.speed = plan->speed;
            e.rate_source = "--plan " + o.plan;
        }
        e.cable_source = "--plan " + o.plan;
    }
    return e;
}

/// A root that is not there is bad input; one we may not read cannot be run.
Status check_root(const std::string& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        return make_error(fmt::format("--sysfs-root {}: not a directory", root), kExitUsage);
    fs::path ib = fs::path(root) / "sys/class/infiniband";
    if (fs::exists(ib, ec) && ::access(ib.c_str(), R_OK | X_OK) != 0 && errno == EACCES)
        return make_error(fmt::format("{}: permission denied", ib.string()), kExitCannotRun);
    return Ok{};
}

/// The state file of --state, else the default place; "" with --no-state.
std::string state_path_of(const HealthRequest& o) {
    if (o.no_state) return "";
    if (!o.state.empty()) return o.state;
    return default_state_path(std::getenv("XDG_STATE_HOME"), std::getenv("HOME"), ::geteuid() == 0);
}

/// The module behind each RoCE port's netdev, through ethtool netlink.
void read_modules(HostInventory& inv) {
    bool asked = false;
    for (auto& d : inv.devices) {
        for (auto& p : d.ports) {
            if (!p.roce() || !p.netdev || p.netdev->name.empty()) continue;
            asked = true;
            ModuleRead r = read_module_eeprom(p.netdev->name);
            PortModule m;
            m.detail = r.detail;
            if (r.outcome == ModuleRead::Outcome::NoModule) {
                m.status = "none";
            } else if (r.outcome == ModuleRead::Outcome::Failed) {
                m.status = "unreadable";
            } else if (auto info = decode_module(r.pages)) {
                m.status = "present";
                m.info = std::move(info).value();
            } else {
                m.status = "unreadable";
                m.detail = info.error().message;
            }
            p.module = std::move(m);
        }
    }
    if (asked) inv.sources.emplace_back("ethtool-netlink");
}

HostInventory read_host(const std::string& root) {
    HostInventory inv = read_inventory(root);
    if (fs::path(root) == "/") {
        // A live host: the active MTU from libibverbs, and RDMA netlink's
        // view merged in (it names what sysfs lacks and where the two disagree).
        fill_active_mtu(inv);
        inv.sources.emplace_back("libibverbs");
        if (auto nl = read_rdma_netlink()) {
            merge_netlink(inv, *nl);
        } else if (!inv.devices.empty()) {
            inv.problems.push_back({"netlink", nl.error().message});
        }
        read_modules(inv);
    }
    return inv;
}

/// What the checks found, and the SA's answers the JSON reports.
struct Checked {
    HealthResult result;
    std::vector<SaPathCheck> sa_paths;
};

/// The checks against the last run's counters, then this run's saved.
Result<Checked> check_node(const HealthRequest& o, const HostInventory& inv, const HealthExpect& e,
                           const std::string& state_path, const std::string& started) {
    std::optional<CounterState> before;
    std::vector<HealthFinding> state_findings;
    if (!state_path.empty()) {
        auto loaded = load_state(state_path);
        if (!loaded && loaded.error().code == kExitCannotRun) return loaded.error();
        if (loaded) {
            before = std::move(loaded).value();
        } else {
            // Our own file, damaged: start a new baseline rather than fail the node.
            state_findings.push_back({"state", HealthSeverity::Warning, state_path,
                                      loaded.error().message + "; starting a new baseline"});
        }
    }
    Checked c{check_health(inv, e, before), {}};
    c.result.findings.insert(c.result.findings.end(), state_findings.begin(), state_findings.end());
    // The SA is asked on a live host only: a fixture tree has no fabric behind it.
    if (!o.no_sa && fs::path(o.sysfs_root) == "/") {
        c.sa_paths = query_sa_paths(inv, o.sa_timeout_ms);
        auto f = check_sa_path(c.sa_paths);
        c.result.findings.insert(c.result.findings.end(), f.begin(), f.end());
    }
    if (!state_path.empty()) {
        if (auto w = save_state(state_of(inv, started), state_path); !w) return w.error();
    }
    return c;
}

/// The verdict on stderr, and the node drained when unhealthy and asked:
/// the exit status (a failed drain's code, its error printed as every
/// command prints one).
int tell_verdict(const HealthRequest& o, const HostInventory& inv, const HealthResult& r,
                 HealthMeta& meta) {
    int code = r.healthy() ? kExitClean : kExitFindings;
    std::string reason = r.reason();
    if (!r.healthy()) {
        std::fprintf(stderr, "fabscope health: %s\n", one_line(reason).c_str());
        if (o.drain) {
            if (auto d = drain_node(o.scontrol, meta.node, reason); !d) {
                std::fprintf(stderr, "%s %s\n", o.style.red("fabscope:").c_str(),
                             one_line(d.error().message).c_str());
                code = d.error().code;
            } else {
                meta.drained = true;
            }
        }
    }
    if (o.verbose > 0 || (!o.quiet && !o.json && r.healthy())) {
        for (const auto& f : r.findings)
            std::fprintf(stderr, "  %s %s: %s\n", std::string(name(f.severity)).c_str(),
                         f.check.c_str(), one_line(f.message).c_str());
    }
    if (r.healthy() && !o.quiet) {
        size_t ports = 0;
        for (const auto& d : inv.devices) ports += d.ports.size();
        // People's text on stderr, as every command: stdout is for --json.
        std::fprintf(stderr, "fabscope health: healthy (%zu device(s), %zu port(s))\n",
                     inv.devices.size(), ports);
    }
    return code;
}

}  // namespace

Result<int> run_health(const HealthRequest& o) {
    Stopwatch clock;
    std::string started = iso8601_now();
    if (auto s = check_root(o.sysfs_root); !s) return s.error();
    auto e = expectations(o);
    if (!e) return e.error();
    HealthMeta meta;
    meta.node = slurm_node_name(o.node_name, std::getenv("SLURMD_NODENAME"), host_name());
    e->host = meta.node;
    std::string state_path = state_path_of(o);
    HostInventory inv = read_host(o.sysfs_root);
    auto checked = check_node(o, inv, *e, state_path, started);
    if (!checked) return checked.error();

    meta.started = started;
    meta.state_file = state_path;
    int code = tell_verdict(o, inv, checked->result, meta);
    meta.elapsed_ms = clock.seconds() * 1000.0;
    if (o.json) {
        nlohmann::json doc = health_to_json(inv, checked->result, meta);
        doc["sa_path"] = sa_path_to_json(checked->sa_paths);
        if (auto w = json_io::write_json_file(doc, "-"); !w) return w.error();
    }
    return code;
}

}  // namespace fabscope::host
