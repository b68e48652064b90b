// fabscope lab: the built-in simulated InfiniBand fabric.

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "lab/faults.h"
#include "lab/ib_lab.h"
#include "lab/lab_sm.h"
#include "lab/node_locator.h"
#include "lab/port_setter.h"
#include "lab/supervisor.h"
#include "model/fabric.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

struct LabWhich {
    std::string name = "default";
    std::string dir;
    Result<std::string> resolve() const { return resolve_lab_dir(name, dir); }
    /// For hints: the flags that choose this lab again.
    std::string flags() const { return which_flags(name, dir); }
    Result<LabState> load() const {
        auto d = resolve();
        if (!d) return d.error();
        return load_lab_state(*d, flags());
    }
};

void add_which(CLI::App* cmd, LabWhich& w) {
    cmd->add_option("--name", w.name,
                    "Lab name (default \"default\"); labs with different names run side by side");
    cmd->add_option("--dir", w.dir, "Lab directory (overrides --name)");
}

struct UpOptions {
    LabWhich which;
    LeafSpineSpec spec;
    std::string width = "4x";
    std::string speed = "hdr";
    std::string net_file;
    int timeout_s = 300;
    bool sm_dump = false;
    std::string routing_engine;
    std::vector<std::string> root_guids;
};

int run_up(const UpOptions& o, const Globals& g) {
    LabUpOptions opts;
    auto dir = o.which.resolve();
    if (!dir) return report(dir.error(), g);
    opts.dir = *dir;
    opts.subnet_up_timeout = std::chrono::seconds(o.timeout_s);
    opts.sm_dump = o.sm_dump;
    opts.routing_engine = o.routing_engine;
    for (const std::string& text : o.root_guids) {
        auto guid = parse_guid(text);
        if (!guid)
            return report(
                make_error(fmt::format("--root-guid {}: not a GUID (0x0002c903000a1b2c)", text)),
                g);
        opts.root_guids.push_back(*guid);
    }
    if (!o.net_file.empty()) {
        opts.net_file = o.net_file;
    } else {
        LeafSpineSpec spec = o.spec;
        auto w = parse_width(o.width);
        auto s = parse_speed(o.speed);
        if (!w)
            return report(make_error(fmt::format("--width {}: use 1x, 2x, 4x, 8x or 12x", o.width)),
                          g);
        if (!s)
            return report(
                make_error(fmt::format("--speed {}: use sdr, ddr, qdr, fdr, edr or hdr", o.speed)),
                g);
        spec.width = *w;
        spec.speed = *s;
        opts.spec = spec;
    }
    if (!g.quiet) std::fprintf(stderr, "Starting the lab in %s ...\n", opts.dir.c_str());
    auto lab = lab_up(opts);
    if (!lab) return report(lab.error(), g);
    if (!g.quiet) {
        std::string which = o.which.flags();
        std::fprintf(stderr,
                     "Lab up: %d switches, %d CAs; SUBNET UP after %.2f s.\n"
                     "Run tools against it with `fabscope lab exec%s -- CMD`, stop it with "
                     "`fabscope lab down%s`.\n",
                     lab->stats.switches, lab->stats.cas, lab->subnet_up_s, which.c_str(),
                     which.c_str());
    }
    if (g.json) {
        nlohmann::json j{{"dir", lab->dir},
                         {"sockname", lab->sockname},
                         {"switches", lab->stats.switches},
                         {"cas", lab->stats.cas},
                         {"subnet_up_s", lab->subnet_up_s},
                         {"ibsim_pid", lab->ibsim.pid},
                         {"opensm_pid", lab->opensm.pid}};
        std::printf("%s\n", j.dump().c_str());
    }
    return kExitClean;
}

struct ExecOptions {
    LabWhich which;
    std::vector<std::string> argv;
    int timeout_s = 0;
    bool direct = false;
    int plane = 0;
};

int run_exec(const ExecOptions& o, const Globals& g) {
    auto lab = o.which.load();
    if (!lab) return report(lab.error(), g);
    if (o.argv.empty())
        return report(make_error("lab exec: no command given (fabscope lab exec -- CMD ARGS)"), g);
    std::vector<std::string> argv = o.argv;
    // `fabscope lab exec -- fabscope ...` runs this very binary.
    if (argv.front() == "fabscope") argv.front() = self_exe();
    auto rc = lab_exec(*lab, argv,
                       {.deadline = std::chrono::milliseconds(o.timeout_s * 1000LL),
                        .plane = o.plane,
                        .direct = o.direct});
    if (!rc) return report(rc.error(), g);
    return *rc;
}

struct FaultOptions {
    LabWhich which;
    std::vector<std::string> words;
};

int run_fault(const FaultOptions& o, const Globals& g) {
    auto fault = parse_fault(o.words);
    if (!fault) return report(fault.error(), g);
    auto lab = o.which.load();
    if (!lab) return report(lab.error(), g);
    auto done = apply_fault(*lab, *fault);
    if (!done) return report(done.error(), g);
    if (g.json) {
        std::printf("%s\n", fault_json(*fault, *done).dump().c_str());
        return kExitClean;
    }
    // A raw console command's answer is its output; what a fault did is for people.
    if (!done->answer.empty()) std::printf("%s\n", done->answer.c_str());
    if (!g.quiet && !done->message.empty()) std::fprintf(stderr, "%s\n", done->message.c_str());
    return kExitClean;
}

int run_down(const LabWhich& w, bool keep, const Globals& g) {
    auto dir = w.resolve();
    if (!dir) return report(dir.error(), g);
    auto left = lab_down(*dir, keep, w.flags());
    if (!left) return report(left.error(), g);
    if (!left->empty() && !g.quiet) {
        std::string names;
        for (const auto& n : *left) names += (names.empty() ? "" : ", ") + n;
        std::fprintf(stderr, "Lab stopped; %s kept: it holds what is not the lab's (%s).\n",
                     dir->c_str(), names.c_str());
    }
    return kExitClean;
}

int run_status(const LabWhich& w, const Globals& g) {
    auto s = w.load();
    if (!s) return report(s.error(), g);
    if (g.json) std::printf("%s\n", lab_status_json(*s).dump().c_str());
    if (!g.quiet) std::fputs(lab_status(*s).c_str(), stderr);
    bool sms = true;
    for (const ProcessId& p : s->plane_sms) sms = sms && is_running(p);
    return is_running(s->ibsim) && is_running(s->opensm) && is_running(s->supervisor) && sms
               ? kExitClean
               : kExitCannotRun;
}

/// The generated topology: switches, hosts, links, planes, and the links' rate.
void add_topology_options(CLI::App* up, UpOptions& o) {
    up->add_option("--spines", o.spec.spines, "Spine switches (default 2)");
    up->add_option("--leaves", o.spec.leaves, "Leaf switches (default 4)");
    up->add_option("--hosts-per-leaf", o.spec.hosts_per_leaf, "Hosts on each leaf (default 4)");
    up->add_option("--links-per-pair", o.spec.links_per_pair,
                   "Parallel links per leaf-spine pair (default 1)");
    up->add_option("--planes", o.spec.planes,
                   "Planes (separate subnets), each host with one HCA on each and each plane "
                   "with its own switches and OpenSM (default 1, at most 4)");
    up->add_option("--width", o.width, "Link width: 1x, 2x, 4x, 8x, 12x (default 4x)");
    up->add_option("--speed", o.speed, "Link speed: sdr ddr qdr fdr edr hdr (default hdr)");
}

/// --net: a net file of one's own, instead of any of the generated topology's options.
void add_net_option(CLI::App* up, UpOptions& o) {
    auto* net =
        up->add_option("--net", o.net_file, "Use this ibsim net file instead of generating one")
            ->check(CLI::ExistingFile);
    for (const char* n : {"--spines", "--leaves", "--hosts-per-leaf", "--links-per-pair", "--width",
                          "--speed", "--planes"}) {
        up->get_option(n)->excludes(net);
    }
}

/// `lab up`: a generated leaf-spine fabric or a net file, and how long to wait for it.
void add_lab_up(CLI::App* lab, Context& ctx) {
    auto o = std::make_shared<UpOptions>();
    CLI::App* up = lab->add_subcommand("up", "Start a simulated fabric and its subnet manager");
    add_which(up, o->which);
    add_topology_options(up, *o);
    add_net_option(up, *o);
    up->add_option("--timeout", o->timeout_s, "Seconds to wait for SUBNET UP (default 300)");
    up->add_flag("--sm-dump", o->sm_dump,
                 "OpenSM writes its routing dump files (opensm-subnet.lst, opensm.fdbs) into "
                 "the lab's osm/ directory, for ibdmchk");
    up->add_option("--routing-engine", o->routing_engine,
                   "OpenSM's routing engine (default OpenSM's: minhop)")
        ->check(CLI::IsMember(
            {"minhop", "updn", "dnup", "ftree", "lash", "dor", "sssp", "dfsssp", "nue"}));
    up->add_option("--root-guid", o->root_guids,
                   "A root switch's node GUID for updn/ftree (OpenSM's root_guid_file); "
                   "repeatable");
    up->footer(R"(Examples:
  fabscope lab up                                     # 2 spines, 4 leaves, 16 hosts, 4X HDR
  fabscope lab up --spines 18 --leaves 36 --hosts-per-leaf 18    # 648 hosts
  fabscope lab up --name b --net my-fabric.net        # a second lab beside the first
  fabscope lab up --planes 2 --leaves 2 --hosts-per-leaf 2       # a rail-optimised fabric)");
    up->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_up(*o, ctx.globals); }; });
}

/// `lab down`: stop the lab, and remove its directory unless --keep.
void add_lab_down(CLI::App* lab, Context& ctx) {
    auto w = std::make_shared<LabWhich>();
    auto keep = std::make_shared<bool>(false);
    CLI::App* down =
        lab->add_subcommand("down", "Stop the lab's own processes and remove its directory");
    add_which(down, *w);
    down->add_flag("--keep", *keep, "Keep the lab directory (logs, net file)");
    down->callback([&ctx, w, keep] {
        ctx.action = [&ctx, w, keep] { return run_down(*w, *keep, ctx.globals); };
    });
}

/// `lab status`: the lab's processes, and whether they all run.
void add_lab_status(CLI::App* lab, Context& ctx) {
    auto w = std::make_shared<LabWhich>();
    CLI::App* status = lab->add_subcommand("status", "Show the lab's processes");
    add_which(status, *w);
    status->callback([&ctx, w] { ctx.action = [&ctx, w] { return run_status(*w, ctx.globals); }; });
}

/// `lab exec`: a program run against the lab's simulator.
void add_lab_exec(CLI::App* lab, Context& ctx) {
    auto o = std::make_shared<ExecOptions>();
    CLI::App* exec = lab->add_subcommand(
        "exec", "Run a libibumad program (fabscope, ibnetdiscover, ...) on the lab");
    add_which(exec, o->which);
    exec->add_option("--plane", o->plane,
                     "Attach to this plane of a multi-plane lab (the simulator gives a "
                     "process one HCA: plane N's first host HCA; default plane 1)");
    exec->add_flag("--direct", o->direct,
                   "Talk to the simulator directly, not through the lab's relay (faster; "
                   "silent nodes do not apply)");
    exec->add_option("--timeout", o->timeout_s,
                     "Stop the command after this many seconds (default: none)");
    // main() cuts the command off the argument list before parsing (see
    // split_exec_command), so its flags never meet ours.
    exec->add_option("command", o->argv, "The command and its arguments, after --");
    exec->footer(R"(The command's exit code is passed through.

Examples:
  fabscope lab exec -- ibnetdiscover
  fabscope lab exec --timeout 60 -- perfquery -x 2 5
  fabscope lab exec -- fabscope discover -o fabric.json)");
    exec->callback([&ctx, o] {
        if (o->argv.empty()) o->argv = ctx.trailing_command;
        ctx.action = [&ctx, o] { return run_exec(*o, ctx.globals); };
    });
}

/// `lab fault`: a fault injected into the running lab.
void add_lab_fault(CLI::App* lab, Context& ctx) {
    auto o = std::make_shared<FaultOptions>();
    CLI::App* fault = lab->add_subcommand(
        "fault", "Inject a fault: link down/up, degraded width/speed, counters, MAD drops");
    add_which(fault, o->which);
    fault->add_option("fault", o->words, "FAULT words (see below)")->required();
    fault->footer(fault_usage());
    fault->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_fault(*o, ctx.globals); }; });
}

struct SmOptions {
    LabWhich which;
    std::string action;  ///< start, stop
    std::string node;
    int priority = 0;
};

struct PartitionsOptions {
    LabWhich which;
    std::string file;
};

int run_sm(const SmOptions& o, const Globals& g) {
    auto s = o.which.load();
    if (!s) return report(s.error(), g);
    if (o.action == "stop") {
        if (auto w = lab_sm_stop(*s, o.node); !w) return report(w.error(), g);
        if (!g.quiet) std::fprintf(stderr, "OpenSM on %s stopped.\n", o.node.c_str());
        return kExitClean;
    }
    auto state = lab_sm_start(*s, o.node, o.priority);
    if (!state) return report(state.error(), g);
    if (!g.quiet)
        std::fprintf(stderr, "OpenSM on %s (priority %d): %s.\n", o.node.c_str(), o.priority,
                     state->c_str());
    return kExitClean;
}

int run_partitions(const PartitionsOptions& o, const Globals& g) {
    auto s = o.which.load();
    if (!s) return report(s.error(), g);
    if (auto w = lab_partitions(*s, o.file); !w) return report(w.error(), g);
    if (!g.quiet)
        std::fprintf(stderr, "Partitions from %s applied by OpenSM (%s).\n", o.file.c_str(),
                     lab_partitions_file(*s).c_str());
    return kExitClean;
}

/// `lab sm start|stop --on NODE`, `lab partitions FILE`: the subnet managers.
void add_lab_sm(CLI::App* lab, Context& ctx) {
    auto o = std::make_shared<SmOptions>();
    CLI::App* sm = lab->add_subcommand(
        "sm", "Start or stop a further OpenSM on a host's HCA: a standby (or a rival master)");
    add_which(sm, o->which);
    sm->add_option("action", o->action, "start or stop")
        ->required()
        ->check(CLI::IsMember({"start", "stop"}));
    sm->add_option("--on", o->node, "The host it runs on, as the net file names it (h0004)")
        ->required();
    sm->add_option("--priority", o->priority,
                   "sm_priority 0..15 (default 0: a standby beside the lab's master, whose GUID "
                   "is lower; above 0 it takes over)");
    sm->footer(R"(Examples:
  fabscope lab sm start --on h0004          # a standby SM
  fabscope lab exec -- sminfo               # the master
  fabscope lab sm stop --on h0004)");
    sm->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_sm(*o, ctx.globals); }; });

    auto p = std::make_shared<PartitionsOptions>();
    CLI::App* parts = lab->add_subcommand(
        "partitions", "Give the lab's OpenSM a partition file (partitions.conf) and apply it");
    add_which(parts, p->which);
    parts->add_option("file", p->file, "OpenSM's partitions.conf syntax (port GUIDs, ALL, ...)")
        ->required();
    parts->footer(R"(Example (keys and port GUIDs as in opensm's partition-config(5)):
  printf 'Default=0x7fff, ipoib : ALL=full ;\ncompute=0x0001 : 0x100001=full, 0x100003=full ;\n' > p.conf
  fabscope lab partitions p.conf && fabscope lab exec -- smpquery pkeys 1)");
    parts->callback(
        [&ctx, p] { ctx.action = [&ctx, p] { return run_partitions(*p, ctx.globals); }; });
}

/// Hidden: the lab's own helpers, started by `lab up` and `lab fault`.
void add_hidden_helpers(CLI::App* lab, Context& ctx) {
    auto args = std::make_shared<std::vector<std::string>>();
    CLI::App* sup = lab->add_subcommand("_supervise", "")->group("");
    sup->add_option("args", *args, "DIR SOCKNAME")->required()->expected(2);
    sup->callback(
        [&ctx, args] { ctx.action = [args] { return run_supervisor((*args)[0], (*args)[1]); }; });

    auto node = std::make_shared<std::string>();
    CLI::App* locate = lab->add_subcommand("_locate", "")->group("");
    locate->add_option("node", *node)->required();
    locate->callback([&ctx, node] {
        ctx.action = [&ctx, node] { return run_locate(*node, ctx.globals.verbose > 0); };
    });

    auto words = std::make_shared<std::vector<std::string>>();
    CLI::App* set = lab->add_subcommand("_set-port", "")->group("");
    set->add_option("words", *words)->required();
    set->callback([&ctx, words] {
        ctx.action = [&ctx, words] { return run_set_port(*words, ctx.globals.verbose > 0); };
    });
}

}  // namespace

void add_lab(CLI::App& app, Context& ctx) {
    CLI::App* lab =
        app.add_subcommand("lab", "The built-in simulated InfiniBand fabric (ibsim + OpenSM)");
    lab->require_subcommand(1);
    lab->footer(R"(Examples:
  fabscope lab up --spines 2 --leaves 4 --hosts-per-leaf 4
  fabscope lab exec -- ibnetdiscover
  fabscope lab exec -- fabscope discover -o fabric.json
  fabscope lab fault link-down leaf01[5]
  fabscope lab fault width leaf02[5] 1x
  fabscope lab down)");

    add_lab_up(lab, ctx);
    add_lab_down(lab, ctx);
    add_lab_status(lab, ctx);
    add_lab_exec(lab, ctx);
    add_lab_fault(lab, ctx);
    add_lab_sm(lab, ctx);
    add_hidden_helpers(lab, ctx);
}

}  // namespace fabscope::cli
