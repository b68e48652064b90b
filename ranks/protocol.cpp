#include "ranks/protocol.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace fabscope::perf {
namespace {
using json = nlohmann::json;
}  // namespace

std::optional<json> parse_message(const std::optional<std::string>& m) {
    if (!m) return std::nullopt;
    json j = json::parse(*m, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
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

}  // namespace fabscope::perf
