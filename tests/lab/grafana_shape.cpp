#include "grafana_shape.h"

#include <set>

namespace fabscope::labtest {

using nlohmann::json;

std::string dashboard_shape_errors(const json& d) {
    std::string out;
    auto need = [&](const json& j, const char* key, json::value_t type, const std::string& where) {
        if (!j.contains(key) || j[key].type() != type) out += where + ": no " + key + "\n";
    };
    need(d, "uid", json::value_t::string, "dashboard");
    need(d, "title", json::value_t::string, "dashboard");
    need(d, "schemaVersion", json::value_t::number_unsigned, "dashboard");
    need(d, "panels", json::value_t::array, "dashboard");
    need(d, "templating", json::value_t::object, "dashboard");
    need(d, "time", json::value_t::object, "dashboard");
    if (!out.empty()) return out;
    bool ds_var = false;
    for (const json& v : d["templating"]["list"])
        ds_var = ds_var || (v["name"] == "datasource" && v["type"] == "datasource");
    if (!ds_var) out += "dashboard: no datasource variable\n";
    std::set<int> ids;
    for (const json& p : d["panels"]) {
        const std::string where = "panel " + p.value("title", std::string("?"));
        need(p, "id", json::value_t::number_unsigned, where);
        need(p, "type", json::value_t::string, where);
        need(p, "title", json::value_t::string, where);
        need(p, "gridPos", json::value_t::object, where);
        need(p, "targets", json::value_t::array, where);
        if (!out.empty()) return out;
        if (!ids.insert(p["id"].get<int>()).second) out += where + ": id used twice\n";
        const json& g = p["gridPos"];
        if (g.value("x", -1) < 0 || g.value("w", 0) < 1 || g.value("x", 0) + g.value("w", 0) > 24 ||
            g.value("h", 0) < 1 || g.value("y", -1) < 0)
            out += where + ": off the 24-column grid\n";
        for (const json& t : p["targets"]) {
            if (!t.contains("expr") || !t.contains("refId"))
                out += where + ": a target without expr\n";
            if (t.value("/datasource/uid"_json_pointer, std::string()) != "${datasource}")
                out += where + ": a target not on ${datasource}\n";
        }
    }
    return out;
}

}  // namespace fabscope::labtest
