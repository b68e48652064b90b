#include "tui/history.h"

#include <algorithm>

namespace fabscope::tui {

void History::append(PortSeries& s, int64_t t_ms, const PortRates& r) {
    if (s.samples.size() == kCapacity) s.samples.erase(s.samples.begin());
    s.samples.push_back(RateSample{static_cast<float>(std::max(r.xmit_gbps, r.rcv_gbps)),
                                   static_cast<float>(r.errors_per_s),
                                   r.xmit_wait ? static_cast<float>(*r.xmit_wait) : -1.0F});
    s.last_ms = t_ms;
}

}  // namespace fabscope::tui
