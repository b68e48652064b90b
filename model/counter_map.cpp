#include "model/counter_map.h"

#include "model/counters.h"

namespace fabscope {

CounterMap counter_deltas(const CounterMap& before, const CounterMap& after) {
    CounterMap d;
    for (const auto& [k, a] : after) {
        auto it = before.find(k);
        if (it == before.end()) continue;
        d[k] = counter_rise(it->second, a).delta;
    }
    return d;
}

CounterMap nonzero(const CounterMap& m) {
    CounterMap out;
    for (const auto& [k, v] : m) {
        if (v) out[k] = v;
    }
    return out;
}

}  // namespace fabscope
