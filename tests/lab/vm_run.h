#pragma once
// One boot of the Soft-RoCE VM lab (lab/rxe/vm) running a guest scenario
// script, and what it left behind: the guest's output ("KEY=VALUE" lines)
// and the JSON files it wrote, each checked against its schema.

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace fabscope::labtest {

struct VmRun {
    int exit_code = -1;
    std::filesystem::path dir;  ///< the guest's output folder
    std::string output;         ///< what the guest script printed
    double wall_s = 0;          ///< boot to power-off

    /// A JSON file the guest wrote, checked against docs/`schema`.
    nlohmann::json file(const std::string& name,
                        const std::string& schema = "perf.schema.json") const;
    /// The value of a "KEY=VALUE" line the guest printed.
    std::string value(const std::string& key) const;
};

/// Boots the VM and runs `script` (guest.sh functions; $F is the fabscope
/// binary as the guest sees it). A VM that did not run it is a test failure.
VmRun run_in_vm(const std::string& name, const std::string& script,
                std::chrono::seconds limit = std::chrono::seconds(900));

}  // namespace fabscope::labtest
