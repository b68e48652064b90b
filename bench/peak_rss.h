#pragma once
// The process's peak resident memory, as the benches print it beside time.

#include <sys/resource.h>

namespace fabscope::bench {

/// Peak resident set size so far, in MB (getrusage's ru_maxrss).
inline long peak_rss_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024;
}

}  // namespace fabscope::bench
