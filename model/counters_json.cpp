#include "model/counters_json.h"

#include "model/json_io.h"

namespace fabscope {

nlohmann::json counters_to_json(const PortCounters& pc) {
    nlohmann::json j{{"extended", pc.extended}, {"read_at_ms", pc.read_at_ms}};
    for (int i = 0; i < kCounterCount; ++i) {
        auto c = static_cast<Counter>(i);
        if (auto v = pc.get(c)) j[std::string(name(c))] = *v;
    }
    return j;
}

PortCounters counters_from_json(const nlohmann::json& j) {
    if (!j.is_object()) json_io::fail(j, "must be an object");
    PortCounters pc;
    pc.extended = json_io::get_bool(j, "extended", false);
    // A time past int64 would come back negative and fail the next read.
    pc.read_at_ms = json_io::get_uint<int64_t>(j, "read_at_ms", 0);
    for (const auto& [key, value] : j.items()) {
        if (key == "extended" || key == "read_at_ms") continue;
        auto c = parse_counter(key);
        if (!c) continue;  // a counter a later version added: ignore
        pc.set(*c, json_io::get_uint<uint64_t>(j, key.c_str()));
    }
    return pc;
}

}  // namespace fabscope
