#pragma once
// The lab's hidden helpers (`lab _set-port`, `lab _locate`) run as clients of
// the simulator, started by `lab exec`. _set-port writes PortInfo, so it must
// never reach a real fabric: this checks that the process really talks to the
// lab's simulator before any MAD is sent.

#include "lab/ib_lab.h"
#include "util/result.h"

namespace fabscope {

/// The lab this process is a client of: FABSCOPE_LAB_DIR names a lab whose
/// simulator is running, the simulator's preload library is loaded in this
/// process, and IBSIM_SOCKNAME is that lab's socket (direct or relay).
/// Anything else is refused with exit 3.
Result<LabState> attached_lab(const char* who);

}  // namespace fabscope
