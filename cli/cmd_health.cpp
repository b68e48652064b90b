// fabscope health: is this node fit to run RDMA jobs? A node-local check
// for Slurm's HealthCheckProgram or an LBNL NHC check: devices present,
// ports Active at the expected rate, PCIe not downtrained, a RoCE v2 GID on
// RoCE ports, an SM on InfiniBand and a working SA path record query from
// each InfiniBand port to itself, error counters not rising since the last
// run. Reads sysfs (and libibverbs for the MTU on a live host); the one MAD
// per port it sends goes to the SM, nothing fabric-wide.

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/cli.h"
#include "discover/sa_self_query.h"
#include "host/health_checks.h"
#include "host/health_json.h"
#include "host/health_sa.h"
#include "host/health_state.h"
#include "host/inventory.h"
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

namespace fabscope::cli {
namespace {

namespace fs = std::filesystem;

struct HealthCommand {
    std::string sysfs_root = "/";
    std::string plan;
    std::string expect;
    std::string state;
    bool no_state = false;
    bool drain = false;
    std::string node_name;
    std::string scontrol = "scontrol";
    bool no_sa = false;
    int sa_timeout_ms = 100;
};

/// One SubnAdmGet(PathRecord) per InfiniBand port to the SA, to itself. A
/// second port behind an SA that did not answer is not asked again (same
/// subnet prefix and SM LID): the node's time budget is well under a second.
std::vector<host::SaPathCheck> query_sa_paths(const host::HostInventory& inv, int timeout_ms) {
    std::vector<host::SaPathCheck> out;
    std::map<std::string, size_t> silent;  // subnet prefix/SM LID -> the port that got no answer
    SaSelfOptions opts;
    opts.timeout = std::chrono::milliseconds(timeout_ms);
    for (const auto& t : host::sa_path_targets(inv)) {
        host::SaPathCheck c;
        c.target = t;
        std::string sa_key = fmt::format("{}/{}", t.gid.substr(0, 19), t.sm_lid);
        if (auto it = silent.find(sa_key); it != silent.end()) {
            const host::SaPathCheck& first = out[it->second];
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
        if (r.outcome == SaSelfResult::Outcome::NoAnswer) silent.emplace(sa_key, out.size());
        out.push_back(std::move(c));
    }
    return out;
}

/// The expectations from --expect and --plan (the plan's rate wins).
Result<host::HealthExpect> expectations(const HealthCommand& o) {
    host::HealthExpect e;
    if (!o.expect.empty()) {
        auto loaded = host::load_health_expect(o.expect);
        if (!loaded) return loaded.error();
        e = std::move(loaded).value();
    }
    if (!o.plan.empty()) {
        auto plan = load_plan(o.plan);
        if (!plan) return plan.error();
        if (!plan->width && !plan->speed)
            return make_error(
                fmt::format("{}: the plan gives no link rate (expect: {{width: 4X, "
                            "speed: HDR}}) for health to check ports against",
                            o.plan));
        e.width = plan->width;
        e.speed = plan->speed;
        e.rate_source = "--plan " + o.plan;
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

int run_health(const HealthCommand& o, const Globals& g) {
    Stopwatch clock;
    std::string started = iso8601_now();
    if (auto s = check_root(o.sysfs_root); !s) return report(s.error(), g);
    auto e = expectations(o);
    if (!e) return report(e.error(), g);
    std::string state_path;
    if (!o.no_state) {
        state_path = o.state.empty()
                         ? host::default_state_path(std::getenv("XDG_STATE_HOME"),
                                                    std::getenv("HOME"), ::geteuid() == 0)
                         : o.state;
    }

    host::HostInventory inv = host::read_inventory(o.sysfs_root);
    if (fs::path(o.sysfs_root) == "/") {
        // A live host: the active MTU from libibverbs, and RDMA netlink's
        // view merged in (it names what sysfs lacks and where the two disagree).
        host::fill_active_mtu(inv);
        inv.sources.emplace_back("libibverbs");
        if (auto nl = host::read_rdma_netlink()) {
            host::merge_netlink(inv, *nl);
        } else if (!inv.devices.empty()) {
            inv.problems.push_back({"netlink", nl.error().message});
        }
    }

    std::optional<host::CounterState> before;
    std::vector<host::HealthFinding> state_findings;
    if (!state_path.empty()) {
        auto loaded = host::load_state(state_path);
        if (!loaded && loaded.error().code == kExitCannotRun) return report(loaded.error(), g);
        if (loaded) {
            before = std::move(loaded).value();
        } else {
            // Our own file, damaged: start a new baseline rather than fail the node.
            state_findings.push_back({"state", host::HealthSeverity::Warning, state_path,
                                      loaded.error().message + "; starting a new baseline"});
        }
    }
    host::HealthResult r = host::check_health(inv, *e, before);
    r.findings.insert(r.findings.end(), state_findings.begin(), state_findings.end());
    // The SA is asked on a live host only: a fixture tree has no fabric behind it.
    std::vector<host::SaPathCheck> sa_paths;
    if (!o.no_sa && fs::path(o.sysfs_root) == "/") {
        sa_paths = query_sa_paths(inv, o.sa_timeout_ms);
        auto f = host::check_sa_path(sa_paths);
        r.findings.insert(r.findings.end(), f.begin(), f.end());
    }
    if (!state_path.empty()) {
        if (auto w = host::save_state(host::state_of(inv, started), state_path); !w)
            return report(w.error(), g);
    }

    host::HealthMeta meta;
    meta.node = host::slurm_node_name(o.node_name, std::getenv("SLURMD_NODENAME"), host_name());
    meta.started = started;
    meta.state_file = state_path;
    int code = r.healthy() ? kExitClean : kExitFindings;
    std::string reason = r.reason();
    if (!r.healthy()) {
        std::fprintf(stderr, "fabscope health: %s\n", one_line(reason).c_str());
        if (o.drain) {
            if (auto d = host::drain_node(o.scontrol, meta.node, reason); !d) {
                code = report(d.error(), g);
            } else {
                meta.drained = true;
            }
        }
    }
    if (g.verbose > 0 || (!g.quiet && !g.json && r.healthy())) {
        for (const auto& f : r.findings)
            std::fprintf(stderr, "  %s %s: %s\n", std::string(host::name(f.severity)).c_str(),
                         f.check.c_str(), one_line(f.message).c_str());
    }
    if (r.healthy() && !g.quiet) {
        size_t ports = 0;
        for (const auto& d : inv.devices) ports += d.ports.size();
        // People's text on stderr, as every command: stdout is for --json.
        std::fprintf(stderr, "fabscope health: healthy (%zu device(s), %zu port(s))\n",
                     inv.devices.size(), ports);
    }
    meta.elapsed_ms = clock.seconds() * 1000.0;
    if (g.json) {
        nlohmann::json doc = host::health_to_json(inv, r, meta);
        doc["sa_path"] = host::sa_path_to_json(sa_paths);
        if (auto w = json_io::write_json_file(doc, "-"); !w) return report(w.error(), g);
    }
    return code;
}

}  // namespace

void add_health(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<HealthCommand>();
    CLI::App* cmd = app.add_subcommand(
        "health",
        "Is this node fit for RDMA jobs? Devices, port state and rate, PCIe, GIDs, SM, "
        "error counters (for Slurm's HealthCheckProgram or NHC)");
    cmd->add_option("--sysfs-root", o->sysfs_root,
                    "Read sysfs under DIR instead of / (a fixture tree or a copied host)");
    cmd->add_option("--plan", o->plan, "Ports must run at the plan's expect: {width, speed}")
        ->check(CLI::ExistingFile);
    cmd->add_option("--expect", o->expect,
                    "What this host should have (YAML): devices, expect: {width, speed}, "
                    "counter_rise")
        ->check(CLI::ExistingFile);
    cmd->add_option("--state", o->state,
                    "Error counters of the last run, to tell whether they rose (default "
                    "$XDG_STATE_HOME/fabscope/health.json or /var/lib/fabscope/health.json)");
    cmd->add_flag("--no-state", o->no_state, "Neither read nor write a state file");
    cmd->add_flag("--drain", o->drain,
                  "When unhealthy, drain this node: scontrol update NodeName=N State=DRAIN "
                  "Reason=\"fabscope: <reason>\"");
    cmd->add_option("--node-name", o->node_name,
                    "Slurm node name for --drain (default $SLURMD_NODENAME, else the short host "
                    "name)");
    cmd->add_option("--scontrol", o->scontrol, "The scontrol to run (default: from PATH)");
    cmd->add_flag("--no-sa", o->no_sa,
                  "Do not ask the SA for a path record (InfiniBand ports; sends one MAD per "
                  "port to the SM)");
    cmd->add_option("--sa-timeout", o->sa_timeout_ms,
                    "Milliseconds to wait for the SA's answer, per attempt; two attempts "
                    "(default 100)")
        ->check(CLI::Range(1, 5000));
    cmd->footer(
        R"(Checks, from sysfs and one MAD per InfiniBand port to its SM (nothing
fabric-wide; well under a second):
  devices     every RDMA device present (--expect devices:), each with ports
  port_state  every port ACTIVE
  port_rate   Active ports at the expected width and speed: from --plan, from
              --expect, else the rate most of this host's ports run at
  pcie        each device's PCIe link at its maximum width and speed
  roce_gid    a RoCE v2 GID on every RoCE port
  ib_sm       an SM LID and a LID on every Active InfiniBand port
  sa_path     the SA answers a PathRecord query (SubnAdmGet) from every Active
              InfiniBand port to itself, within --sa-timeout (live host only;
              --no-sa skips it). Needs read/write access to /dev/infiniband/umad*:
              without it the check is a warning
  counters    symbol_error, link_error_recovery, link_downed, port_rcv_errors,
              port_rcv_remote_physical_errors, local_link_integrity_errors,
              excessive_buffer_overrun_errors not risen since the last run (--state)
A file that cannot be read or holds a bad value is a warning naming it.

On failure one line with the reason goes to stderr; with --drain the node is
drained with that reason (as NHC does). Slurm ignores a health check's exit
code: use --drain in HealthCheckProgram.

Exit codes: 0 healthy, 1 unhealthy, 2 bad flags or input files, 3 no
permission (sysfs, state file) or scontrol failed.

Examples:
  fabscope health
  fabscope health --expect /etc/fabscope/health.yaml --drain
  fabscope health --plan fabric-plan.yaml --json | jq .findings
  fabscope health --sysfs-root tests/fixtures/host/pcie-x8 --no-state)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_health(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
