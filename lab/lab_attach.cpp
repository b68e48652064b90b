#include "lab/lab_attach.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "util/exit_status.h"

namespace fabscope {
namespace {

bool preload_loaded() {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        if (line.find(kUmad2simPath) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

Result<LabState> attached_lab(const char* who) {
    auto refuse = [&](const std::string& why) {
        return make_error(fmt::format("lab {}: refused: {} (it only runs inside a lab, started by "
                                      "`fabscope lab fault`)",
                                      who, why),
                          kExitCannotRun);
    };
    const char* dir = std::getenv("FABSCOPE_LAB_DIR");
    if (!dir || !*dir) return refuse("not attached to a lab's simulator (no FABSCOPE_LAB_DIR)");
    auto lab = load_lab_state(dir);
    if (!lab)
        return refuse(fmt::format("not attached to a lab's simulator ({})", lab.error().message));
    if (!is_running(lab->ibsim))
        return refuse(fmt::format(
            "not attached to a lab's simulator (the lab in {} is not running)", lab->dir));
    if (!preload_loaded())
        return refuse(
            fmt::format("not attached to a lab's simulator ({} is not loaded)", kUmad2simPath));
    const char* sock = std::getenv("IBSIM_SOCKNAME");
    if (!sock || (lab->sockname != sock && lab->proxy_sockname() != sock))
        return refuse(
            fmt::format("not attached to the simulator of the lab in {} (IBSIM_SOCKNAME "
                        "is not its socket)",
                        lab->dir));
    return lab;
}

}  // namespace fabscope
