#pragma once
// Readers of what fabscope's result documents share: the version they were
// written in, a run's status, non-negative numbers. The value readers throw
// the json_io errors: call them inside json_io::guarded.

#include <nlohmann/json.hpp>
#include <string>

#include "util/result.h"

namespace fabscope {

/// Version 1, the one this fabscope reads; otherwise "WHAT version N is not
/// supported (this fabscope reads version 1)".
Status check_version_1(const nlohmann::json& j, const char* what);

/// A run's "status": running, complete, interrupted or aborted.
std::string run_status(const nlohmann::json& j);

/// A finite number, at least 0 (rates, durations, shares).
double non_negative(const nlohmann::json& j, const char* key);

}  // namespace fabscope
