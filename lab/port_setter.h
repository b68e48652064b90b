#pragma once
// Degrading a link in the lab: a PortInfo Set of LinkWidthEnabled or
// LinkSpeed(Ext)Enabled on both ends, sent as a client of the simulator.
// Both ends, because the simulator recomputes a link's active width and speed
// from whichever end was set last (the SM's next Set would undo a one-sided
// change). This is the only code in fabscope that writes to a fabric, and it
// runs only inside the lab (`lab fault width|speed`).

#include <string>
#include <vector>

namespace fabscope {

/// words: NODE PORT width|speed VALUE. Returns an exit code; prints what it did.
int run_set_port(const std::vector<std::string>& words, bool verbose);

}  // namespace fabscope
