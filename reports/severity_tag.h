#pragma once
// The severity column of every human report: "error  ", "warning", "info   ",
// coloured as the style allows, always 7 columns wide.

#include <string>

#include "model/finding.h"
#include "util/term.h"

namespace fabscope {

std::string severity_tag(const TextStyle& st, Severity s);

}  // namespace fabscope
