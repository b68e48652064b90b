#include "mesh/order.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "net/message.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

/// The ring of an order: at most `b.max_ring_sizes` sizes, each within the
/// agent's --max-size, iterations and the time a size may take bounded.
Result<RingTest> ring_from_json(const json& j, const MeshAgentBounds& b, const ServeCaps& caps) {
    auto bad = [](const std::string& why) {
        return make_error(fmt::format("mesh order: ring: {}", why));
    };
    auto r = j.find("ring");
    if (r == j.end() || !r->is_object()) return bad("missing");
    RingTest t;
    auto sizes = r->find("sizes");
    if (sizes == r->end() || !sizes->is_array() || sizes->empty() ||
        sizes->size() > b.max_ring_sizes)
        return bad(fmt::format("sizes: 1 .. {} sizes", b.max_ring_sizes));
    for (const json& s : *sizes) {
        if (!s.is_number_integer() || s.get<int64_t>() < 1 || s.get<uint64_t>() > caps.max_size)
            return bad(fmt::format("sizes: each 1 byte .. this agent's --max-size {}",
                                   format_size(caps.max_size)));
        t.sizes.push_back(s.get<uint64_t>());
    }
    const int64_t iterations = message_int(*r, "iterations", -1);
    const int64_t warmup = message_int(*r, "warmup", -1);
    const int64_t timeout = message_int(*r, "timeout_ms", -1);
    if (iterations < 1 || iterations > b.max_ring_iterations || warmup < 0 ||
        warmup > b.max_ring_iterations)
        return bad(fmt::format("iterations 1 .. {}, warm-up 0 .. {}", b.max_ring_iterations,
                               b.max_ring_iterations));
    if (timeout < 1 || timeout > b.max_ring_timeout.count())
        return bad(fmt::format("timeout_ms 1 .. {}", b.max_ring_timeout.count()));
    t.iterations = static_cast<uint32_t>(iterations);
    t.warmup = static_cast<uint32_t>(warmup);
    t.timeout = Millis(timeout);
    return t;
}

}  // namespace

json order_to_json(const MeshOrder& o) {
    json names = json::array();
    for (const auto& [addr, name] : o.names) names.push_back({addr, name});
    json j = {{"version", o.version},
              {"rank", o.rank},
              {"size", o.size},
              {"device", o.device},
              {"port", o.port},
              {"spec", spec_to_json(o.spec)},
              {"traffic_class", o.traffic_class},
              {"mtu", o.mtu_cap},
              {"pattern", o.pattern},
              {"step_timeout_ms", o.step_timeout.count()},
              {"max_cover_rounds", o.max_cover_rounds},
              {"adaptive_rounds", o.adaptive_rounds},
              {"trace_variants", o.trace_variants},
              {"trace", o.trace},
              {"trace_timeout_ms", o.trace_timeout.count()},
              {"names", names}};
    if (o.gid_index) j["gid_index"] = *o.gid_index;
    if (o.pattern == "ring") {
        j["ring"] = {{"sizes", o.ring.sizes},
                     {"iterations", o.ring.iterations},
                     {"warmup", o.ring.warmup},
                     {"timeout_ms", o.ring.timeout.count()}};
    }
    if (o.plan_extra.count() > 0) j["plan_extra_ms"] = o.plan_extra.count();
    return j;
}

Result<MeshOrder> order_from_json(const json& j, const MeshAgentBounds& b, const ServeCaps& caps) {
    auto bad = [](const std::string& why) {
        return make_error(fmt::format("mesh order: {}", why));
    };
    if (!j.is_object()) return bad("not an object");
    MeshOrder o;
    const int64_t version = message_int(j, "version", -1);
    if (version != kMeshOrderVersion) {
        return bad(
            fmt::format("version {} (this agent speaks version {}: use the same fabscope "
                        "release on the coordinator and the agents)",
                        version, kMeshOrderVersion));
    }
    // Each integer checked as the wire's 64 bits, before it is narrowed.
    std::string why;
    auto field = [&](const char* key, int64_t lo, int64_t hi) -> int64_t {
        int64_t v = message_int(j, key, lo - 1);
        if (why.empty() && (v < lo || v > hi))
            why = fmt::format("{} {} is outside {} .. {}", key, v, lo, hi);
        return v;
    };
    o.size = static_cast<int>(field("size", 3, b.max_ranks));
    if (!why.empty()) return bad(why);
    o.rank = static_cast<int>(field("rank", 1, o.size - 1));
    o.port = static_cast<int>(field("port", 0, 255));
    if (j.contains("gid_index")) o.gid_index = static_cast<int>(field("gid_index", 0, 255));
    o.traffic_class = static_cast<uint8_t>(field("traffic_class", 0, 255));
    o.mtu_cap = static_cast<int>(field("mtu", 0, 4096));
    o.max_cover_rounds =
        static_cast<size_t>(field("max_cover_rounds", 1, static_cast<int64_t>(b.max_cover_rounds)));
    o.adaptive_rounds = static_cast<size_t>(
        field("adaptive_rounds", 0, static_cast<int64_t>(b.max_adaptive_rounds)));
    o.trace_variants = static_cast<int>(field("trace_variants", 1, b.max_trace_variants));
    o.step_timeout =
        Millis(field("step_timeout_ms", b.min_step_timeout.count(), b.max_step_timeout.count()));
    o.trace_timeout = Millis(field("trace_timeout_ms", 1, b.max_trace_timeout.count()));
    if (j.contains("plan_extra_ms")) o.plan_extra = Millis(field("plan_extra_ms", 0, 300000));
    if (!why.empty()) return bad(why);
    o.device = message_text(j, "device");
    if (o.device.size() > 64) return bad("device name longer than 64 characters");
    o.pattern = message_text(j, "pattern");
    if (o.pattern != "all-pairs" && o.pattern != "cover" && o.pattern != "leaf" &&
        o.pattern != "pairs" && o.pattern != "ring")
        return bad(
            fmt::format("pattern \"{}\" (all-pairs, cover, leaf, pairs or ring)", o.pattern));
    if (o.pattern == "ring") {
        if (auto r = ring_from_json(j, b, caps); !r)
            return r.error();
        else
            o.ring = std::move(*r);
    }
    o.trace = message_bool(j, "trace", false);
    if (auto n = j.find("names"); n != j.end()) {
        if (!n->is_array()) return bad("names is not an array");
        if (n->size() > b.max_names)
            return bad(fmt::format("{} names, more than {}", n->size(), b.max_names));
        for (const json& e : *n) {
            if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string() ||
                e[0].get_ref<const std::string&>().size() > 64 ||
                e[1].get_ref<const std::string&>().size() > 255)
                return bad("names: each entry is [address, name], at most 64 and 255 characters");
            o.names[e[0].get<std::string>()] = e[1].get<std::string>();
        }
    }
    auto spec = j.find("spec");
    if (spec == j.end() || !spec->is_object()) return bad("no spec");
    try {
        o.spec = spec_from_json(*spec);
    } catch (const std::exception& e) {
        return bad(fmt::format("bad spec: {}", e.what()));
    }
    if (o.spec.measure != Measure::Bandwidth || o.spec.iterations != 0 ||
        o.spec.duration.count() <= 0)
        return bad("a mesh flow is a bandwidth test by duration");
    if (o.spec.size > caps.max_size)
        return bad(fmt::format("size {} is above this agent's --max-size {}",
                               format_size(o.spec.size), format_size(caps.max_size)));
    if (o.spec.duration > caps.max_duration || o.spec.warmup_time > caps.max_duration) {
        return bad(fmt::format("duration {} or warm-up {} is above this agent's --max-duration {}",
                               format_duration(o.spec.duration),
                               format_duration(o.spec.warmup_time),
                               format_duration(caps.max_duration)));
    }
    if (Millis limit = order_session_limit(o); limit > b.max_session) {
        return bad(
            fmt::format("the run could take {} ({:.1f} h), more than this agent's --max-session {}",
                        format_duration(limit), static_cast<double>(limit.count()) / 3.6e6,
                        format_duration(b.max_session)));
    }
    return o;
}

Millis order_session_limit(const MeshOrder& o) {
    if (o.pattern == "ring") {
        // mesh/ring_run: the start, the connect step, and each size within its timeout.
        const Millis start = o.step_timeout * 6 + o.plan_extra;
        const Millis connect = o.step_timeout * 5;
        const Millis size = o.ring.timeout + o.step_timeout * 4;
        return start + connect + size * static_cast<int64_t>(o.ring.sizes.size()) + o.step_timeout;
    }
    // The waits of mesh/run, each at its longest.
    const bool cover = o.pattern == "cover";
    const Millis start = o.step_timeout * 3 * (cover ? 4 : 2) + o.plan_extra;
    const Millis phase = o.step_timeout * 4 + o.spec.duration + o.spec.warmup_time;
    // Explicit pairs, each once, packed first-fit: fewer than 2N rounds.
    const int64_t rounds = cover ? static_cast<int64_t>(o.max_cover_rounds + o.adaptive_rounds)
                           : o.pattern == "pairs" ? 2 * static_cast<int64_t>(o.size)
                                                  : static_cast<int64_t>(o.size);
    return start + phase * (2 * rounds) + o.step_timeout;
}

}  // namespace fabscope::perf
