#include "util/clock.h"

#include "util/time_util.h"

namespace fabscope {

int64_t SystemClock::unix_ms() const {
    return unix_millis_now();
}

const Clock& system_clock() {
    static const SystemClock clock;
    return clock;
}

}  // namespace fabscope
