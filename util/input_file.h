#pragma once
// Reading the files people hand us, within bounds: a file larger than its
// kind may be is refused before it is read, and running out of memory while
// loading one is an input error that names the file (exit 2), not a crash.

#include <cstdint>
#include <string>

#include "util/result.h"

namespace fabscope {

/// Reads a whole file ("-" = stdin), refusing one larger than `max` bytes.
Result<std::string> read_text_file(const std::string& path, uint64_t max);

/// "path: out of memory while loading it (N MiB)", code 2.
Error out_of_memory(const std::string& path);

}  // namespace fabscope
