#include "perf/mesh_wire.h"

#include <fmt/format.h>

#include <stdexcept>

#include "model/duration.h"

namespace fabscope::perf {
namespace {
using json = nlohmann::json;
}  // namespace

json rank_json(const MeshRank& r) {
    json j = {{"rank", r.rank},   {"host", r.host},   {"device", r.device},  {"port", r.port},
              {"plane", r.plane}, {"error", r.error}, {"address", r.address}};
    if (r.coordinator) j["coordinator"] = true;
    if (r.lid != 0) j["lid"] = r.lid;
    if (r.port_guid != 0) j["port_guid"] = format_guid(r.port_guid);
    return j;
}

MeshRank rank_from_json(const json& j) {
    MeshRank r;
    r.rank = j.value("rank", 0);
    r.host = j.value("host", "");
    r.device = j.value("device", "");
    r.port = j.value("port", 0);
    r.plane = j.value("plane", 0);
    r.error = j.value("error", "");
    r.address = j.value("address", "");
    r.coordinator = j.value("coordinator", false);
    if (j.contains("lid")) {
        const json& lid = j.at("lid");
        if (!lid.is_number_unsigned() || lid.get<uint64_t>() > 0xBFFF)
            throw std::out_of_range("lid must be a unicast LID (0..49151)");
        r.lid = lid.get<uint16_t>();
    }
    if (j.contains("port_guid")) {
        auto g = parse_guid(j.at("port_guid").get<std::string>());
        if (!g) throw std::out_of_range("port_guid must be a GUID (0x and 16 hex digits)");
        r.port_guid = *g;
    }
    return r;
}

std::string who(const std::vector<MeshRank>& ranks, int r) {
    if (r >= 0 && static_cast<size_t>(r) < ranks.size() && !ranks[r].host.empty())
        return fmt::format("rank {} ({})", r, ranks[r].host);
    return fmt::format("rank {}", r);
}

std::optional<json> parse_message(const std::optional<std::string>& m) {
    if (!m) return std::nullopt;
    json j = json::parse(*m, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
}

std::unique_ptr<VerbsDevice> open_rank_device(const OpenDevice& open, MeshRank& self) {
    try {
        auto opened = open(self.device, self.port);
        if (!opened) {
            self.error = opened.error().message;
            return nullptr;
        }
        std::unique_ptr<VerbsDevice> dev = std::move(*opened);
        self.device = dev->name();
        self.port = dev->port();
        return dev;
    } catch (const std::exception& e) {
        self.error = e.what();
        return nullptr;
    }
}

std::vector<MeshRank> ranks_from_hellos(const MeshComm::Messages& hellos, Millis start_wait,
                                        std::vector<char>& skip,
                                        std::vector<MeshFinding>& findings) {
    std::vector<MeshRank> ranks;
    for (size_t i = 0; i < hellos.size(); ++i) {
        const int r = static_cast<int>(i);
        auto j = parse_message(hellos[i]);
        MeshRank mr;
        std::string unreadable;
        if (j) {
            try {
                mr = rank_from_json(*j);
            } catch (const std::exception& e) {
                unreadable = e.what();
            }
        }
        mr.rank = r;
        if (!unreadable.empty()) {
            mr = MeshRank{};
            mr.rank = r;
            mr.gone = true;
            skip[i] = 1;
            findings.push_back(
                {"rank-gone", r, -1,
                 fmt::format("rank {} said hello in a form this fabscope cannot read ({}): is "
                             "every rank the same fabscope?",
                             r, unreadable)});
        } else if (!j) {
            mr.gone = true;
            skip[i] = 1;
            findings.push_back(
                {"rank-gone", r, -1,
                 fmt::format("rank {} did not start within {}", r, format_duration(start_wait))});
        } else if (!mr.error.empty()) {
            findings.push_back(
                {"rank-unavailable", r, -1,
                 fmt::format("rank {} ({}) takes no part: {}", r, mr.host, mr.error)});
        }
        ranks.push_back(mr);
    }
    return ranks;
}

json measure_bandwidth(TestEndpoint& ep, const TestSpec& spec, Millis step_timeout,
                       const StopToken& stop) {
    const Millis limit = spec.duration + spec.warmup_time + step_timeout;
    const auto deadline = MeshClock::now() + limit;
    auto keep_going = [&]() -> std::string {
        if (stop.stop_requested()) return "interrupted";
        if (MeshClock::now() > deadline)
            return fmt::format("no result within {}", format_duration(limit));
        return "";
    };
    BandwidthOutcome b = ep.run_bandwidth(spec, keep_going);
    return {{"ok", b.error.empty()},
            {"error", b.error},
            {"avg_gbps", b.meter.average_gbps()},
            {"peak_gbps", b.meter.peak_gbps()},
            {"min_window_gbps", b.meter.min_window_gbps()},
            {"bytes", b.meter.bytes()},
            {"seconds", b.meter.seconds()}};
}

}  // namespace fabscope::perf
