#pragma once
// Readers of values the run documents (mesh runs, incasts) share. They throw
// the json_io errors: call inside json_io::guarded.

#include <nlohmann/json.hpp>

namespace fabscope {

/// A finite number, at least 0 (rates, durations, shares).
double non_negative(const nlohmann::json& j, const char* key);

}  // namespace fabscope
