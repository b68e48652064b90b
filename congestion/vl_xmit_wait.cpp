#include "congestion/vl_xmit_wait.h"

namespace fabscope {

std::vector<VlRise> vl_wait_rises(const VlXmitWait& before, const VlXmitWait& after) {
    std::vector<VlRise> out;
    for (int vl = 0; vl < kVlCount; ++vl) {
        const auto i = static_cast<size_t>(vl);
        const CounterRise r = counter_rise(before[i], after[i]);
        if (r.delta > 0 || r.cleared) out.push_back({vl, r});
    }
    return out;
}

}  // namespace fabscope
