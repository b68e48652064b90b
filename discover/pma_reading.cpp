#include "discover/pma_reading.h"

#include "discover/pma_decode.h"

namespace fabscope {

std::optional<PortCounters> PmaReading::counters() const {
    if (!base) return std::nullopt;
    PortCounters pc = decode_port_counters(mad::pma_data(*base));
    if (extended) merge_port_counters_extended(pc, mad::pma_data(*extended));
    pc.read_at_ms = read_at_ms;
    return pc;
}

}  // namespace fabscope
