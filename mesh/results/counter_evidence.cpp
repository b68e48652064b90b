#include "mesh/results/counter_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

namespace fabscope::perf {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool is_counter_value(const nlohmann::json& v) {
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

void add_counters(const nlohmann::json& side, CounterMap& sum) {
    if (!side.is_object()) return;
    for (const auto& [name, v] : side.items()) {
        if (name.empty() || name.size() > kMaxCounterName || !is_counter_value(v)) continue;
        auto it = sum.find(name);
        if (it == sum.end()) {
            if (sum.size() >= kMaxCounterNames) continue;
            it = sum.emplace(name, 0).first;
        }
        it->second = saturating_add(it->second, v.get<uint64_t>());
    }
}

bool is_event_counter(const std::string& name) {
    // Counters every flow moves, whatever their words: rxe's ack_deferred
    // counts the ACKs it coalesced (all 52 healthy flows of a VM run moved it).
    static constexpr std::array<std::string_view, 4> kAlways = {"rdma_sends", "rdma_recvs",
                                                                "lifespan", "ack_deferred"};
    if (std::find(kAlways.begin(), kAlways.end(), name) != kAlways.end()) return false;
    // Words of the counters that count something going wrong or slowing
    // down, whatever their suffix (mlx5's np_ecn_marked_roce_packets).
    static constexpr std::array<std::string_view, 16> kEvent = {
        "err",     "discard", "drop",      "ecn",    "cnp",      "wait",    "retr",      "seq",
        "timeout", "nak",     "duplicate", "downed", "recovery", "overrun", "integrity", "rnr"};
    for (std::string_view w : kEvent) {
        if (name.find(w) != std::string::npos) return true;
    }
    static constexpr std::array<std::string_view, 5> kTraffic = {"_data", "_bytes", "_pkts",
                                                                 "_packets", "_requests"};
    return std::none_of(kTraffic.begin(), kTraffic.end(),
                        [&](std::string_view s) { return ends_with(name, s); });
}

std::string event_counters_line(const CounterMap& m, size_t most) {
    std::vector<std::pair<std::string, uint64_t>> events;
    for (const auto& [name, v] : m) {
        if (v && is_event_counter(name)) events.emplace_back(name, v);
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (size_t i = 0; i < events.size() && i < most; ++i) {
        if (!out.empty()) out += ", ";
        out += fmt::format("{} +{}", events[i].first, events[i].second);
    }
    if (events.size() > most) out += fmt::format(" and {} more", events.size() - most);
    return out;
}

}  // namespace fabscope::perf
