#include "congestion/roce_change_json.h"

#include <fmt/format.h>

namespace fabscope {
namespace {

using json = nlohmann::json;
using Changes = std::map<std::string, CounterChange>;

json changes_json(const std::map<std::string, Changes>& by) {
    json out = json::object();
    for (const auto& [key, m] : by) {
        json counters = json::object();
        for (const auto& [name, c] : m)
            counters[name] = {
                {"delta", c.delta}, {"per_second", c.per_second}, {"cleared", c.cleared}};
        out[key] = counters;
    }
    return out;
}

std::map<std::string, Changes> changes_from(const json& j) {
    std::map<std::string, Changes> out;
    for (const auto& [key, counters] : j.items()) {
        Changes& m = out[key];
        for (const auto& [name, c] : counters.items()) {
            m[name] = {c.at("delta").get<uint64_t>(), c.at("per_second").get<double>(),
                       c.at("cleared").get<bool>()};
        }
    }
    return out;
}

}  // namespace

json roce_change_to_json(const RoceChange& c) {
    json dcb = json::object();
    for (const auto& [nd, d] : c.dcb) dcb[nd] = dcb_to_json(d);
    return {{"host", c.host},
            {"interval_s", c.interval_s},
            {"problems", c.problems},
            {"netdev_of", c.netdev_of},
            {"rdma", changes_json(c.rdma)},
            {"eth", changes_json(c.eth)},
            {"dcb", dcb}};
}

Result<RoceChange> roce_change_from_json(const json& j, const std::string& origin) {
    RoceChange c;
    try {
        c.host = j.at("host").get<std::string>();
        c.interval_s = j.at("interval_s").get<double>();
        c.problems = j.at("problems").get<std::vector<std::string>>();
        c.netdev_of = j.at("netdev_of").get<std::map<std::string, std::string>>();
        c.rdma = changes_from(j.at("rdma"));
        c.eth = changes_from(j.at("eth"));
        for (const auto& [nd, d] : j.at("dcb").items()) {
            auto s = dcb_from_json(d, nd, origin);
            if (!s) return s.error();
            c.dcb[nd] = std::move(s).value();
        }
    } catch (const std::exception& e) {
        return make_error(fmt::format("{}: a bad counter change: {}", origin, e.what()));
    }
    return c;
}

}  // namespace fabscope
