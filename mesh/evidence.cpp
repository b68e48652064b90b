#include "mesh/evidence.h"

#include <nlohmann/json.hpp>
#include <string_view>

namespace fabscope::perf {

FlowCounters sum_flow_counters(const MeshRunData& d, const std::vector<size_t>& flows,
                               FlowEnd end) {
    FlowCounters out;
    for (size_t i : flows) {
        if (i >= d.flows.size()) continue;
        ++out.flows;
        const nlohmann::json c = d.flows[i].counters.unpack();
        if (!c.is_object()) continue;
        bool any = false;
        for (const char* side : {"local", "remote"}) {
            const bool wanted = end == FlowEnd::Both ||
                                (end == FlowEnd::Sender) == (std::string_view(side) == "local");
            auto it = c.find(side);
            if (!wanted || it == c.end() || !it->is_object()) continue;
            any = true;
            add_counters(*it, out.sum);
        }
        out.counted += any ? 1 : 0;
    }
    std::erase_if(out.sum, [](const auto& kv) { return kv.second == 0; });
    return out;
}

nlohmann::json flow_counters_json(const FlowCounters& c) {
    nlohmann::json sum = nlohmann::json::object();
    for (const auto& [name, v] : c.sum) sum[name] = v;
    return {{"flows", c.flows}, {"counted", c.counted}, {"sum", sum}};
}

}  // namespace fabscope::perf
