#include "host/slurm_drain.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>

#include "util/exit_status.h"
#include "util/printable.h"
#include "util/process.h"

namespace fabscope::host {

std::string slurm_node_name(const std::string& flag, const char* slurmd_nodename,
                            const std::string& hostname) {
    if (!flag.empty()) return flag;
    if (slurmd_nodename && *slurmd_nodename) return slurmd_nodename;
    return hostname.substr(0, hostname.find('.'));
}

std::string drain_reason(const std::string& reason) {
    constexpr size_t kMax = 200;
    std::string r = "fabscope: " + one_line(reason);
    if (r.size() > kMax) r = r.substr(0, kMax - 3) + "...";
    return r;
}

std::vector<std::string> drain_command(const std::string& scontrol, const std::string& node,
                                       const std::string& reason) {
    return {scontrol, "update", "NodeName=" + node, "State=DRAIN",
            "Reason=" + drain_reason(reason)};
}

bool is_one_node_name(const std::string& node) {
    constexpr size_t kMax = 64;  // HOST_NAME_MAX
    if (node.empty() || node.size() > kMax || node.front() == '-' || node.front() == '.')
        return false;
    return std::all_of(node.begin(), node.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
}

Status drain_node(const std::string& scontrol, const std::string& node, const std::string& reason) {
    if (node.empty()) return make_error("--drain: no node name (give --node-name)", kExitUsage);
    if (!is_one_node_name(node)) {
        return make_error(
            fmt::format("--drain: \"{}\" is not one node name (letters, digits, '-', '_', '.'): "
                        "a hostlist such as node[01-99] or a list would drain many nodes; give "
                        "--node-name",
                        printable(node)),
            kExitUsage);
    }
    SpawnOptions o;
    o.argv = drain_command(scontrol, node, reason);
    o.stdout_to_stderr = true;  // stdout is health's JSON
    auto child = spawn(o);
    if (!child) {
        return make_error(
            fmt::format("--drain: cannot run {}: {}", scontrol, child.error().message),
            kExitCannotRun);
    }
    RunResult r = wait_child(child->pid, std::chrono::seconds(10));
    if (r.timed_out)
        return make_error(fmt::format("--drain: {} did not finish within 10 s", scontrol),
                          kExitCannotRun);
    if (r.exit_code != 0)
        return make_error(fmt::format("--drain: {} update NodeName={} failed (exit {})", scontrol,
                                      node, r.exit_code),
                          kExitCannotRun);
    return Ok{};
}

}  // namespace fabscope::host
