#pragma once
// The two PMA answers that make one port's counter reading, PortCounters and
// PortCountersExtended, collected as they arrive (in either order) and
// merged by one rule: the extended answer's 64-bit data and packet counters
// win over the 32-bit ones, and an extended answer without its PortCounters
// is no reading. The sweep's counters pass and the later readings
// (counter_reader) both use it.

#include <optional>

#include "discover/mad_format.h"
#include "model/counters.h"

namespace fabscope {

struct PmaReading {
    std::optional<MadBytes> base;      ///< the PortCounters reply
    std::optional<MadBytes> extended;  ///< the PortCountersExtended reply
    int64_t read_at_ms = 0;            ///< when PortCounters answered (Unix ms)

    /// The merged counters; nothing without a PortCounters answer.
    std::optional<PortCounters> counters() const;
};

}  // namespace fabscope
