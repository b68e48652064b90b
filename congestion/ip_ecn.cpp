#include "congestion/ip_ecn.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace fabscope {
namespace {

const char* const kFields[] = {"InNoECTPkts", "InECT1Pkts", "InECT0Pkts", "InCEPkts"};

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

uint64_t value(const CounterMap& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
}

}  // namespace

std::optional<CounterMap> parse_ip_ecn(const std::string& netstat) {
    std::istringstream in(netstat);
    std::string header;
    std::string values;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("IpExt:", 0) != 0) continue;
        if (header.empty()) {
            header = line;
        } else {
            values = line;
            break;
        }
    }
    const std::vector<std::string> names = words(header);
    const std::vector<std::string> nums = words(values);
    if (names.size() != nums.size()) return std::nullopt;
    CounterMap out;
    for (size_t i = 1; i < names.size(); ++i) {
        for (const char* f : kFields) {
            if (names[i] != f) continue;
            try {
                size_t used = 0;
                uint64_t v = std::stoull(nums[i], &used);
                if (used != nums[i].size()) return std::nullopt;
                out[f] = v;
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
    }
    if (out.empty()) return std::nullopt;
    return out;
}

std::optional<CounterMap> read_ip_ecn(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return parse_ip_ecn(s.str());
}

std::vector<Finding> detect_ce_without_cnp(const RoceChange& c, const CounterMap& ip,
                                           const RoceLimits& t) {
    const uint64_t ce = value(ip, "InCEPkts");
    if (ce < t.ecn_marked_min || c.rdma.empty()) return {};
    uint64_t cnps = 0;
    bool counted = false;
    nlohmann::json ports = nlohmann::json::object();
    for (const auto& [key, m] : c.rdma) {
        auto it = m.find("np_cnp_sent");
        counted = counted || it != m.end();
        if (it != m.end()) cnps += it->second.delta;
        ports[key] = it == m.end() ? nlohmann::json(nullptr) : nlohmann::json(it->second.delta);
    }
    if (cnps > 0) return {};
    Finding f = make_finding(
        "ecn_without_cnp", Severity::Warning,
        fmt::format(
            "{}: {} CE-marked packets arrived (kernel IpExt InCEPkts +{} over {:.1f} s) and no CNP "
            "was sent ({}): a queue on the way to this receiver marked, and no sender was told to "
            "slow down",
            c.host, ce, ce, c.interval_s,
            counted ? "np_cnp_sent +0"
                    : "its RDMA device counts no CNPs: no DCQCN, as on Soft-RoCE"),
        {},
        {{"host", c.host},
         {"interval_s", c.interval_s},
         {"source", "/proc/net/netstat IpExt"},
         {"ip_ecn",
          {{"InCEPkts", ce},
           {"InECT0Pkts", value(ip, "InECT0Pkts")},
           {"InECT1Pkts", value(ip, "InECT1Pkts")},
           {"InNoECTPkts", value(ip, "InNoECTPkts")}}},
         {"np_cnp_sent", ports}});
    return {f};
}

}  // namespace fabscope
