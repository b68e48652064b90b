#pragma once
// What launched the ranks of a mesh run, as its report says it: the MPI
// library and, when the rank runs in a Slurm job step (srun, or mpirun
// inside an allocation), which job and step, so a ticket can point at the
// scheduler's own records of the run.

#include <functional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace fabscope::perf {

/// Reads an environment variable; nullptr when unset.
using EnvReader = std::function<const char*(const char*)>;

/// "Open MPI v4.1.4", or "Open MPI v4.1.4, Slurm job 42 step 0" when
/// SLURM_JOB_ID and SLURM_STEP_ID are set. A value that is not a short word
/// of letters, digits, '.', '_' or '-' is left out, never copied.
std::string describe_launcher(const std::string& library, const EnvReader& env);

/// What `command` says when this fabscope was built without MPI (exit 3):
/// how to get it, then `then` (what else the user may do), the same words
/// for every command that launches ranks with MPI.
Error built_without_mpi(std::string_view command, std::string_view then);

}  // namespace fabscope::perf
