#pragma once
// How a finished command ends: with its own exit code, and without running
// exit handlers. Under the lab's simulator, umad2sim's exit handler cancels
// and joins its receiver thread while holding the lock that thread may wait
// for: lab runs saw a sweep that had written its report hang at exit, and
// another end with SIGSEGV (exit 139) after its report was complete. Nothing
// of fabscope's own needs an exit handler (every file is written and closed
// before the command returns), so none is run.

namespace fabscope {

/// Flushes stdout and stderr (C and C++ streams), then ends the process at
/// once with `code`.
[[noreturn]] void end_process(int code);

}  // namespace fabscope
