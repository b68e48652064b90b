#pragma once
// A Grafana dashboard of docs/grafana as Grafana imports it: the fields its
// dashboard model requires, each panel placed on the 24-column grid with a
// unique id, every query on the datasource variable.

#include <nlohmann/json.hpp>
#include <string>

namespace fabscope::labtest {

/// "" when `d` has that shape; else a line per problem.
std::string dashboard_shape_errors(const nlohmann::json& d);

}  // namespace fabscope::labtest
