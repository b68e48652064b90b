#pragma once
// Shared plumbing of the subcommands: the options every command knows, the
// action the parser selected, and how a command reports an error.

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/node_name_map.h"
#include "model/snapshot.h"
#include "util/progress.h"
#include "util/result.h"
#include "util/term.h"

namespace fabscope::cli {

/// Options that mean the same in every subcommand.
struct Globals {
    bool json = false;          ///< --json: machine output on stdout
    bool no_color = false;      ///< --no-color (NO_COLOR works too)
    bool quiet = false;         ///< -q: no human summary on stderr
    int verbose = 0;            ///< -v, repeatable
    std::string node_name_map;  ///< --node-name-map FILE
    /// The map read from it before the command runs (nullptr without one).
    std::shared_ptr<const NodeNameMap> node_names;
    TextStyle err_style() const { return style_for(2, no_color); }
    /// How long work shows it is under way on stderr (util/progress.h).
    Progress progress() const { return progress_for(quiet, verbose); }
};

/// Filled by the parser: the selected subcommand's work.
struct Context {
    Globals globals;
    std::function<int()> action;
    /// For `lab exec`: the command to run, cut off before parsing.
    std::vector<std::string> trailing_command;
};

/// Cuts the command off `fabscope ... lab exec [OPTIONS] [--] CMD ARGS...`:
/// returns the arguments to parse (up to the exec options) and stores CMD
/// ARGS in `command`. Other command lines come back unchanged.
std::vector<std::string> split_exec_command(const std::vector<std::string>& args,
                                            std::vector<std::string>& command);

/// The node-name map applied to a fabric just discovered or loaded.
void name_nodes(Snapshot& s, const Globals& g);
/// load_snapshot, then name_nodes: how every command reads a snapshot file.
Result<Snapshot> load_named_snapshot(const std::string& path, const Globals& g);

/// Prints "fabscope: <message>" on stderr and returns the error's exit code.
int report(const Error& e, const Globals& g);

// Subcommand registration; each lives in its own cmd_*.cpp.
void add_discover(CLI::App& app, Context& ctx);
void add_lab(CLI::App& app, Context& ctx);
void add_sweep(CLI::App& app, Context& ctx);
void add_route(CLI::App& app, Context& ctx);
void add_validate(CLI::App& app, Context& ctx, const std::vector<std::string>& argv);
void add_congestion(CLI::App& app, Context& ctx);
void add_plan(CLI::App& app, Context& ctx);
void add_diff(CLI::App& app, Context& ctx);
void add_perf(CLI::App& app, Context& ctx);
/// `perf trace`, under the perf subcommand.
void add_perf_trace(CLI::App* perf, Context& ctx);
void add_tui(CLI::App& app, Context& ctx);
void add_mesh(CLI::App& app, Context& ctx);
/// `mesh run`, under `mesh` (cmd_mesh_run.cpp).
/// `mesh run`; also `perf mesh` (the same command under the name the issue gives it).
void add_mesh_run(CLI::App* mesh, Context& ctx, const std::string& name = "run");
/// `argv`: the command line as given, which the report records.
void add_report(CLI::App& app, Context& ctx, const std::vector<std::string>& argv);
void add_exporter(CLI::App& app, Context& ctx);
void add_probe(CLI::App& app, Context& ctx);
void add_health(CLI::App& app, Context& ctx);

}  // namespace fabscope::cli
