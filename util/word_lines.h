#pragma once
// The walk of a hosts-style text file: each line cut at '#', split into
// words, blank lines skipped; a line longer than the limit, or what the
// caller says of a line's words, ends the walk with "SOURCE:LINE: why"
// (exit 2). The mesh agents' hosts file and the probe pinglist read so.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope {

/// Called with the line's number and words; returns "" to go on, else why not.
using WordLine = std::function<std::string(int line, const std::vector<std::string>& words)>;

Status for_each_word_line(const std::string& text, const std::string& source, size_t max_line,
                          const WordLine& fn);

}  // namespace fabscope
