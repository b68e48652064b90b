#include "tui/history.h"

#include <algorithm>

namespace fabscope::tui {

RateSample sample_of(const PortRates& r) {
    return RateSample{static_cast<float>(std::max(r.xmit_gbps, r.rcv_gbps)),
                      static_cast<float>(r.errors_per_s),
                      r.xmit_wait ? static_cast<float>(*r.xmit_wait) : -1.0F};
}

void History::append(PortSeries& s, int64_t t_ms, const PortRates& r) {
    if (s.samples.size() == kCapacity) s.samples.erase(s.samples.begin());
    s.samples.push_back(sample_of(r));
    s.last_ms = t_ms;
}

}  // namespace fabscope::tui
