#include "ranks/launcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

bool short_word(const char* v) {
    if (!v) return false;
    std::string_view s(v);
    return !s.empty() && s.size() <= 32 && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    });
}

}  // namespace

std::string describe_launcher(const std::string& library, const EnvReader& env) {
    const char* job = env("SLURM_JOB_ID");
    const char* step = env("SLURM_STEP_ID");
    if (!short_word(job) || !short_word(step)) return library;
    return fmt::format("{}, Slurm job {} step {}", library, job, step);
}

Error built_without_mpi(std::string_view command, std::string_view then) {
    return make_error(fmt::format("{}: this fabscope was built without MPI. Install Open MPI "
                                  "(Debian, Ubuntu: apt-get install libopenmpi-dev openmpi-bin) "
                                  "and build again{}",
                                  command, then),
                      kExitCannotRun);
}

}  // namespace fabscope::perf
