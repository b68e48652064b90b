// fabscope: InfiniBand / RoCEv2 fabric diagnostics. main() reads as the
// list of subcommands; each one's work is in its own cmd_*.cpp.

#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "cli/cli.h"
#include "util/end_process.h"
#include "util/exit_status.h"
#include "util/printable.h"
#include "util/version.h"

namespace fabscope::cli {

std::vector<std::string> split_exec_command(const std::vector<std::string>& args,
                                            std::vector<std::string>& command) {
    size_t lab = 1;
    while (lab < args.size() && args[lab] != "lab") ++lab;
    if (lab + 1 >= args.size() || args[lab + 1] != "exec") return args;
    std::vector<std::string> head(args.begin(), args.begin() + static_cast<long>(lab) + 2);
    for (size_t i = lab + 2; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
            return head;
        }
        if (a.empty() || a[0] != '-') {
            command.assign(args.begin() + static_cast<long>(i), args.end());
            return head;
        }
        head.push_back(a);
        // exec's own options that take a value: --name N, --dir D, --timeout S, --plane P
        bool takes_value = (a == "--name" || a == "--dir" || a == "--timeout" || a == "--plane");
        if (takes_value && i + 1 < args.size()) head.push_back(args[++i]);
    }
    return head;
}

void name_nodes(Snapshot& s, const Globals& g) {
    if (g.node_names) s.fabric = apply_node_names(s.fabric, *g.node_names);
}

Result<Snapshot> load_named_snapshot(const std::string& path, const Globals& g) {
    auto s = load_snapshot(path);
    if (s) name_nodes(*s, g);
    return s;
}

int report(const Error& e, const Globals& g) {
    TextStyle st = g.err_style();
    // One line, whatever the message holds (a simulator's answer, a child's output).
    std::fprintf(stderr, "%s %s\n", st.red("fabscope:").c_str(), one_line(e.message).c_str());
    return e.code;
}

}  // namespace fabscope::cli

namespace {

int run(int argc, char** argv) {
    using namespace fabscope;
    CLI::App app{
        "fabscope: find what is wrong with an InfiniBand or RoCE fabric, prove it, and say where."};
    app.name("fabscope");
    app.set_version_flag("--version", std::string("fabscope ") + version());
    app.require_subcommand(1);
    app.fallthrough();  // global flags work after the subcommand too
    app.footer(R"(Examples:
  fabscope lab up --spines 2 --leaves 4 --hosts-per-leaf 4
  fabscope lab exec -- fabscope discover -o fabric.json
  fabscope discover --load fabric.json --json | jq '.links | length'
  fabscope lab down

Exit codes: 0 clean, 1 findings over threshold, 2 usage or input error,
3 could not run (no device, no permission), 130 interrupted.
Manual: man fabscope (docs/fabscope.1).)");

    cli::Context ctx;
    app.add_flag("--json", ctx.globals.json, "Machine-readable JSON on stdout");
    app.add_flag("--no-color", ctx.globals.no_color, "No colour (also: NO_COLOR=1)");
    app.add_flag("-q,--quiet", ctx.globals.quiet, "No human summary on stderr");
    app.add_flag(
        "-v,--verbose", ctx.globals.verbose,
        "More detail on stderr (repeatable); progress a line a step when stderr is not a terminal");
    app.add_option("--node-name-map", ctx.globals.node_name_map,
                   "Names for nodes by GUID, in ibnetdiscover's format (0xGUID \"name\" per line)");

    std::vector<std::string> args(argv, argv + argc);
    cli::add_discover(app, ctx);
    cli::add_sweep(app, ctx);
    cli::add_route(app, ctx);
    cli::add_validate(app, ctx, args);
    cli::add_congestion(app, ctx);
    cli::add_plan(app, ctx);
    cli::add_diff(app, ctx);
    cli::add_perf(app, ctx);
    cli::add_mesh(app, ctx);
    cli::add_tui(app, ctx);
    cli::add_exporter(app, ctx);
    cli::add_probe(app, ctx);
    cli::add_health(app, ctx);
    cli::add_lab(app, ctx);
    cli::add_report(app, ctx, args);

    args = cli::split_exec_command(args, ctx.trailing_command);
    // CLI11 takes the arguments in reverse order when given a vector.
    std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // One line: the problem, then where the usage is.
        std::fprintf(stderr, "fabscope: %s (see `fabscope --help` or `fabscope COMMAND --help`)\n",
                     fabscope::one_line(e.what()).c_str());
        return kExitUsage;
    }
    if (!ctx.action) return kExitUsage;
    if (!ctx.globals.node_name_map.empty()) {
        auto map = load_node_name_map(ctx.globals.node_name_map);
        if (!map) return cli::report(map.error(), ctx.globals);
        ctx.globals.node_names = std::make_shared<const NodeNameMap>(std::move(map).value());
    }
    return ctx.action();
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const int code = run(argc, argv);
        // The work is done: no library's exit handler may hang it or change its code.
        fabscope::end_process(code);
    } catch (const std::exception& e) {
        // Nothing should get here; if something does, say so plainly.
        std::fprintf(stderr, "fabscope: internal error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "fabscope: internal error\n");
    }
    return fabscope::kExitCannotRun;
}
