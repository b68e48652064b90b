#pragma once
// Reading the files people hand us, within bounds: a file larger than its
// kind may be is refused before it is read, and running out of memory while
// loading one is an input error that names the file (exit 2), not a crash.

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "util/result.h"

namespace fabscope {

/// Reads a whole file ("-" = stdin), refusing one larger than `max` bytes.
/// Only a regular file is read: a FIFO, device, socket or directory is an
/// error at once (it is opened without blocking and looked at first), and
/// the read stops at `max` bytes whatever size the file claims. Errors name
/// the file, code 2.
Result<std::string> read_text_file(const std::string& path, uint64_t max);

/// The same test alone, for a file another library opens by its name (an
/// ibnetdiscover cache): Ok for a regular file, else the error read_text_file gives.
Status check_regular_input(const std::string& path);

/// What a file of stat mode `mode` is, when it is not a regular file: "a
/// FIFO", "a character device", "a directory", ...
const char* non_regular_kind(mode_t mode);

/// "path: out of memory while loading it (N MiB)", code 2.
Error out_of_memory(const std::string& path);

}  // namespace fabscope
