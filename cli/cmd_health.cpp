// fabscope health: is this node fit to run RDMA jobs? A node-local check
// for Slurm's HealthCheckProgram or an LBNL NHC check: devices present,
// ports Active at the expected rate, PCIe not downtrained, a RoCE v2 GID on
// RoCE ports, an SM on InfiniBand and a working SA path record query from
// each InfiniBand port to itself, error counters not rising since the last
// run. Reads sysfs (and libibverbs for the MTU on a live host); the one MAD
// per port it sends goes to the SM, nothing fabric-wide.

#include <memory>

#include "cli/cli.h"
#include "host/health_run.h"

namespace fabscope::cli {
namespace {

int run_health(host::HealthRequest request, const Globals& g) {
    request.json = g.json;
    request.quiet = g.quiet;
    request.verbose = g.verbose;
    request.style = g.err_style();
    auto code = host::run_health(request);
    return code ? *code : report(code.error(), g);
}

}  // namespace

void add_health(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<host::HealthRequest>();
    CLI::App* cmd = app.add_subcommand(
        "health",
        "Is this node fit for RDMA jobs? Devices, port state and rate, PCIe, GIDs, SM, "
        "error counters (for Slurm's HealthCheckProgram or NHC)");
    cmd->add_option("--sysfs-root", o->sysfs_root,
                    "Read sysfs under DIR instead of / (a fixture tree or a copied host)");
    cmd->add_option("--plan", o->plan,
                    "Ports must run at the plan's expect: {width, speed} and hold the cable "
                    "its links give them (cable: {vendor, part_number, length_m})")
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
  module      each RoCE port's module within its own alarm and warning
              thresholds; with --plan, the cable the plan gives its link
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
