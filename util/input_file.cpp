#include "util/input_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>

#include "util/exit_status.h"
#include "util/memory.h"

namespace fabscope {
namespace {

// Reads all of `in`, refusing more than `max` bytes.
Result<std::string> read_at_most(std::istream& in, uint64_t max, uint64_t expected,
                                 const std::string& origin) {
    std::string text;
    text.reserve(static_cast<size_t>(expected));
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<size_t>(in.gcount()));
        if (text.size() > max) {
            return make_error(
                fmt::format("{}: more than the {} fabscope reads", origin, format_bytes(max)),
                kExitUsage);
        }
    }
    if (in.bad()) {
        return make_error(fmt::format("{}: read error: {}", origin, std::strerror(errno)),
                          kExitUsage);
    }
    return text;
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, uint64_t max) {
    try {
        if (path == "-") return read_at_most(std::cin, max, 0, "<stdin>");
        std::error_code ec;
        uint64_t size = std::filesystem::file_size(path, ec);
        if (ec) size = 0;  // not a regular file (a pipe): read and count
        if (size > max) {
            return make_error(fmt::format("{}: the file is {}, more than the {} fabscope reads",
                                          path, format_bytes(size), format_bytes(max)),
                              kExitUsage);
        }
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            return make_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)),
                              kExitUsage);
        }
        return read_at_most(in, max, size, path);
    } catch (const std::bad_alloc&) {
        return out_of_memory(path);
    }
}

Error out_of_memory(const std::string& path) {
    std::error_code ec;
    uint64_t size = path == "-" ? 0 : std::filesystem::file_size(path, ec);
    return make_error(fmt::format("{}: out of memory while loading it{}", path,
                                  ec || size == 0 ? "" : fmt::format(" ({})", format_bytes(size))),
                      kExitUsage);
}

}  // namespace fabscope
