#include "reports/run_json.h"

#include <fmt/format.h>

#include <cmath>

#include "model/json_io.h"

namespace fabscope {

Status check_version_1(const nlohmann::json& j, const char* what) {
    auto version = j.find("version");
    if (version == j.end() || !version->is_number_integer() || *version != 1) {
        return make_error(
            fmt::format("{} version {} is not supported (this fabscope reads version 1)", what,
                        version == j.end() ? std::string("(none)") : version->dump()));
    }
    return Ok{};
}

std::string run_status(const nlohmann::json& j) {
    std::string s = json_io::get_string(j, "status");
    if (s != "running" && s != "complete" && s != "interrupted" && s != "aborted")
        json_io::fail(j.at("status"), "must be one of running, complete, interrupted, aborted");
    return s;
}

double non_negative(const nlohmann::json& j, const char* key) {
    double v = json_io::get_double(j, key);
    if (!std::isfinite(v) || v < 0) json_io::fail(j.at(key), "must be a number, at least 0");
    return v;
}

}  // namespace fabscope
