#pragma once
// Finding a lab node's GUID and LID by its net-file name, as a client of the
// lab (hidden `lab _locate NODE`): what `lab fault silent` needs to tell the
// relay which MADs to swallow.

#include <string>

namespace fabscope {

/// Prints {"guid": "0x...", "lid": N, "description": "..."} on stdout; exit code.
int run_locate(const std::string& node_id, bool verbose);

}  // namespace fabscope
