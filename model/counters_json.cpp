#include "model/counters_json.h"

#include "model/json_io.h"

namespace fabscope {

nlohmann::json counters_to_json(const PortCounters& pc) {
    nlohmann::json j{{"extended", pc.extended}, {"read_at_ms", pc.read_at_ms}};
    if (pc.fec != FecLayout::None) j["fec"] = std::string(name(pc.fec));
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
    if (j.contains("fec")) {
        const auto layout = parse_fec_layout(json_io::get_string(j, "fec"));
        if (!layout) json_io::fail(j.at("fec"), "must be one of none, original, rs-fec");
        pc.fec = *layout;
    }
    // Unix milliseconds up to the year 9999: a time past int64 would come back
    // negative, and one near it overflows the interval between two readings.
    constexpr uint64_t kLastReadAtMs = 253402300799999;  // 9999-12-31T23:59:59.999Z
    pc.read_at_ms = static_cast<int64_t>(
        j.contains("read_at_ms") ? json_io::get_uint_checked(j, "read_at_ms", kLastReadAtMs) : 0);
    for (const auto& [key, value] : j.items()) {
        if (key == "extended" || key == "read_at_ms" || key == "fec") continue;
        auto c = parse_counter(key);
        if (!c) continue;  // a counter a later version added: ignore
        // No counter holds more than its width: a larger value is not a reading.
        pc.set(*c, json_io::get_uint_checked(j, key.c_str(), counter_max(*c, pc.extended)));
    }
    return pc;
}

}  // namespace fabscope
