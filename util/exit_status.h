#pragma once
// The exit codes are the scripting contract (docs/exit-codes.md). Only main()
// calls exit; everything else returns one of these up the stack.

namespace fabscope {

enum ExitStatus : int {
    kExitClean = 0,         ///< ran, nothing over threshold
    kExitFindings = 1,      ///< ran, findings over threshold
    kExitUsage = 2,         ///< bad flags, bad or unreadable input file
    kExitCannotRun = 3,     ///< no device, no permission, lab not running, peer tool missing
    kExitInterrupted = 130  ///< SIGINT/SIGTERM; partial results were written
};

}  // namespace fabscope
