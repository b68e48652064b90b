#pragma once
// An exit that cannot hang. A command that has finished its work must end,
// even when a library's exit handler does not: under the lab's simulator,
// umad2sim's handler cancels and joins its receiver thread while holding the
// lock that thread may be waiting for (seen once in a lab run after a sweep
// with dropped MADs: the sweep's report written, the process stuck at exit).

#include <chrono>

namespace fabscope {

/// Flushes stdout and stderr, then arms a timer: if the process has not
/// exited `grace` from now, it ends at once with exit code `code`.
void exit_within(int code, std::chrono::seconds grace = std::chrono::seconds(5));

}  // namespace fabscope
