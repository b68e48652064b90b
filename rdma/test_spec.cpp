#include "rdma/test_spec.h"

#include <fmt/format.h>

#include <charconv>

#include "model/json_io.h"

namespace fabscope::perf {

std::string_view name(Op op) {
    switch (op) {
        case Op::Write: return "write";
        case Op::Read: return "read";
        case Op::Send: return "send";
    }
    return "?";
}

std::optional<Op> parse_op(std::string_view s) {
    for (Op o : {Op::Write, Op::Read, Op::Send}) {
        if (name(o) == s) return o;
    }
    return std::nullopt;
}

std::string TestSpec::name() const {
    return fmt::format("{}_{}{}", perf::name(op), measure == Measure::Bandwidth ? "bw" : "lat",
                       bidirectional ? "_bidir" : "");
}

std::optional<uint32_t> parse_size(std::string_view s) {
    if (s.empty()) return std::nullopt;
    uint64_t mult = 1;
    char last = s.back();
    if (last == 'K' || last == 'k') mult = 1024;
    if (last == 'M' || last == 'm') mult = 1024 * 1024;
    if (last == 'G' || last == 'g') mult = 1024 * 1024 * 1024;
    if (mult != 1) s.remove_suffix(1);
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v == 0) return std::nullopt;
    v *= mult;
    if (v > (1ULL << 30)) return std::nullopt;
    return static_cast<uint32_t>(v);
}

nlohmann::json spec_to_json(const TestSpec& s) {
    return {{"op", name(s.op)},
            {"measure", s.measure == Measure::Bandwidth ? "bandwidth" : "latency"},
            {"bidirectional", s.bidirectional},
            {"size", s.size},
            {"iterations", s.iterations},
            {"duration_ms", s.duration.count()},
            {"tx_depth", s.tx_depth},
            {"cq_moderation", s.cq_moderation},
            {"inline_max", s.inline_max},
            {"warmup", s.warmup},
            {"warmup_ms", s.warmup_time.count()},
            {"window_ms", s.window.count()}};
}

TestSpec spec_from_json(const nlohmann::json& j) {
    TestSpec s;
    const nlohmann::json& op = json_io::get(j, "op");
    auto o = op.is_string() ? parse_op(op.get<std::string>()) : std::nullopt;
    if (!o) json_io::fail(op, "must be write, read or send");
    s.op = *o;
    std::string m = json_io::get_string(j, "measure");
    if (m != "bandwidth" && m != "latency")
        json_io::fail(j.at("measure"), "must be bandwidth or latency");
    s.measure = m == "bandwidth" ? Measure::Bandwidth : Measure::Latency;
    s.bidirectional = json_io::get_bool(j, "bidirectional", false);
    s.size = json_io::get_uint<uint32_t>(j, "size");
    if (s.size == 0 || s.size > (1U << 30)) json_io::fail(j.at("size"), "must be 1 byte to 1 GiB");
    s.iterations = json_io::get_uint<uint64_t>(j, "iterations", 0);
    s.duration = Millis(json_io::get_uint<uint32_t>(j, "duration_ms", 5000));
    s.tx_depth = std::max<uint32_t>(1, json_io::get_uint<uint32_t>(j, "tx_depth", 128));
    s.cq_moderation = std::max<uint32_t>(1, json_io::get_uint<uint32_t>(j, "cq_moderation", 100));
    s.inline_max = json_io::get_uint<uint32_t>(j, "inline_max", 0);
    s.warmup = json_io::get_uint<uint64_t>(j, "warmup", 256);
    s.warmup_time = Millis(json_io::get_uint<uint32_t>(j, "warmup_ms", 1000));
    s.window = Millis(std::max<uint32_t>(1, json_io::get_uint<uint32_t>(j, "window_ms", 100)));
    return s;
}

}  // namespace fabscope::perf
