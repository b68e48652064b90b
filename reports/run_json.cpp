#include "reports/run_json.h"

#include <cmath>

#include "model/json_io.h"

namespace fabscope {

double non_negative(const nlohmann::json& j, const char* key) {
    double v = json_io::get_double(j, key);
    if (!std::isfinite(v) || v < 0) json_io::fail(j.at(key), "must be a number, at least 0");
    return v;
}

}  // namespace fabscope
