#include "trace/roce_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <sstream>

#include "util/input_file.h"

namespace fabscope::perf {
namespace {

using nlohmann::json;

struct Outstanding {
    size_t flow = 0;
    int ttl = 0;
    uint32_t tag = 0;
    Clock::time_point sent;
    Clock::time_point deadline;
};

}  // namespace

Result<HostNames> parse_host_names(const std::string& text, const std::string& source) {
    HostNames out;
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::string addr;
        std::string name;
        if (!(words >> addr)) continue;
        if (!(words >> name)) {
            return make_error(
                fmt::format("{}:{}: \"{}\" has no name (want ADDRESS NAME)", source, n, addr));
        }
        out.emplace(addr, name);
    }
    return out;
}

Result<HostNames> load_host_names(const std::string& path) {
    if (path.empty()) return HostNames{};
    auto text = read_text_file(path, 16 << 20);
    if (!text) return text.error();
    return parse_host_names(*text, path);
}

std::vector<FlowTrace> trace_flows(ProbeTransport& transport, const Clock& clock,
                                   const std::vector<uint16_t>& sports,
                                   const std::string& destination, const TraceOptions& options,
                                   const HostNames& names) {
    std::vector<FlowTrace> flows(sports.size());
    for (size_t i = 0; i < sports.size(); ++i) flows[i].sport = sports[i];
    const int max_hops = std::clamp(options.max_hops, 1, kMaxTraceHops);
    const size_t in_flight = std::max<size_t>(1, options.in_flight);
    std::deque<size_t> waiting;
    for (size_t i = 0; i < flows.size(); ++i) waiting.push_back(i);
    std::vector<Outstanding> out;
    uint32_t next_tag = 1;

    auto finish = [&](size_t flow, std::string end, std::string error = "") {
        flows[flow].end = std::move(end);
        flows[flow].error = std::move(error);
    };
    auto probe = [&](size_t flow, int ttl) {
        uint32_t tag = next_tag++;
        if (auto s = transport.send(flows[flow].sport, ttl, tag); !s) {
            finish(flow, "error", s.error().message);
            return;
        }
        auto now = clock.now();
        out.push_back({flow, ttl, tag, now, now + options.timeout});
    };

    while (!waiting.empty() || !out.empty()) {
        while (!waiting.empty() && out.size() < in_flight) {
            size_t f = waiting.front();
            waiting.pop_front();
            probe(f, 1);
        }
        if (out.empty()) continue;
        auto earliest = std::min_element(out.begin(), out.end(), [](const auto& a, const auto& b) {
                            return a.deadline < b.deadline;
                        })->deadline;
        std::optional<ProbeAnswer> a = transport.receive(earliest);
        auto now = clock.now();
        if (a) {
            auto it = std::find_if(out.begin(), out.end(), [&](const Outstanding& o) {
                return flows[o.flow].sport == a->sport && (a->tag == 0 || a->tag == o.tag);
            });
            // An answer to a probe already given up on, or to someone else's: ignored.
            if (it != out.end()) {
                Outstanding o = *it;
                out.erase(it);
                FlowTrace& f = flows[o.flow];
                double rtt = std::chrono::duration<double, std::milli>(now - o.sent).count();
                auto hop = [&] {
                    auto n = names.find(a->from);
                    return TraceHop{o.ttl, a->from, n == names.end() ? "" : n->second, rtt};
                };
                switch (a->kind) {
                    case ProbeAnswer::Kind::TimeExceeded:
                        f.hops.push_back(hop());
                        if (o.ttl >= max_hops) {
                            finish(o.flow, "max_hops");
                        } else {
                            probe(o.flow, o.ttl + 1);
                        }
                        break;
                    case ProbeAnswer::Kind::Unreachable:
                        if (a->from == destination) {
                            finish(o.flow, "destination");
                        } else {
                            f.hops.push_back(hop());
                            finish(o.flow, "unreachable",
                                   fmt::format("{} answered destination unreachable (code {})",
                                               a->from, a->icmp_code));
                        }
                        break;
                    case ProbeAnswer::Kind::LocalError: finish(o.flow, "error", a->error); break;
                }
            }
        }
        for (auto it = out.begin(); it != out.end();) {
            if (it->deadline <= now) {
                finish(it->flow, "silent");
                it = out.erase(it);
            } else {
                ++it;
            }
        }
    }
    return flows;
}

std::string hop_label(const TraceHop& h) {
    return h.name.empty() ? h.address : fmt::format("{} ({})", h.name, h.address);
}

std::vector<DistinctPath> distinct_paths(const std::vector<FlowTrace>& flows) {
    std::vector<DistinctPath> out;
    for (const FlowTrace& f : flows) {
        std::vector<std::string> hops;
        for (const TraceHop& h : f.hops) hops.push_back(hop_label(h));
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const DistinctPath& p) { return p.hops == hops; });
        if (it == out.end()) {
            out.push_back({hops, {f.sport}});
        } else {
            it->sports.push_back(f.sport);
        }
    }
    return out;
}

json flow_trace_to_json(const FlowTrace& f) {
    json hops = json::array();
    for (const TraceHop& h : f.hops) {
        json j{{"ttl", h.ttl}, {"address", h.address}, {"rtt_ms", h.rtt_ms}};
        if (!h.name.empty()) j["name"] = h.name;
        hops.push_back(j);
    }
    json j{{"sport", f.sport}, {"hops", hops}, {"end", f.end}};
    if (!f.error.empty()) j["error"] = f.error;
    return j;
}

FlowTrace flow_trace_from_json(const json& j) {
    FlowTrace f;
    f.sport = j.at("sport").get<uint16_t>();
    f.end = j.at("end").get<std::string>();
    f.error = j.value("error", "");
    for (const json& h : j.at("hops")) {
        f.hops.push_back({h.at("ttl").get<int>(), h.at("address").get<std::string>(),
                          h.value("name", ""), h.at("rtt_ms").get<double>()});
    }
    return f;
}

json trace_report_to_json(const TraceReport& r) {
    json flows = json::array();
    for (const FlowTrace& f : r.flows) flows.push_back(flow_trace_to_json(f));
    json paths = json::array();
    for (const DistinctPath& p : distinct_paths(r.flows)) {
        paths.push_back({{"hops", p.hops}, {"sports", p.sports}});
    }
    json j{{"format", "fabscope-perf-trace"},
           {"version", 1},
           {"destination", r.destination},
           {"dport", kRoceV2Port},
           {"ports", r.ports},
           {"flows", flows},
           {"paths", paths}};
    if (!r.source.empty()) j["source"] = r.source;
    return j;
}

}  // namespace fabscope::perf
