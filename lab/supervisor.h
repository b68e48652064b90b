#pragma once
// The lab's own daemon, started by `lab up` (hidden `lab _supervise DIR
// SOCKNAME`): it keeps the simulator's console fifo open, relays every lab
// client's MADs to the simulator (staying silent for nodes made silent), and
// frees the simulator slots of clients that died. It exits when the
// simulator is gone or the lab directory is removed.

#include <string>

namespace fabscope {

int run_supervisor(const std::string& dir, const std::string& sockname);

}  // namespace fabscope
