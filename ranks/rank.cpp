#include "ranks/rank.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/fabric.h"

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

json ranks_json(const std::vector<MeshRank>& ranks) {
    json out = json::array();
    for (const MeshRank& r : ranks) out.push_back(rank_json(r));
    return out;
}

json rank_report_json(const MeshRank& r) {
    return {{"rank", r.rank}, {"host", r.host},   {"device", r.device},
            {"port", r.port}, {"error", r.error}, {"gone", r.gone}};
}

std::vector<MeshRank> ranks_from_json(const json& j) {
    std::vector<MeshRank> out;
    for (const json& r : j) out.push_back(rank_from_json(r));
    return out;
}

std::string who(const std::vector<MeshRank>& ranks, int r) {
    if (r >= 0 && static_cast<size_t>(r) < ranks.size() && !ranks[r].host.empty())
        return fmt::format("rank {} ({})", r, ranks[r].host);
    return fmt::format("rank {}", r);
}

}  // namespace fabscope::perf
