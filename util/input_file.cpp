#include "util/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>
#include <optional>

#include "util/exit_status.h"
#include "util/memory.h"
#include "util/unique_fd.h"

namespace fabscope {
namespace {

// Opened without blocking (a FIFO with no writer would block in open), then
// looked at: only a regular file is read.
Result<UniqueFd> open_regular(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (fd.get() < 0)
        return make_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)),
                          kExitUsage);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return make_error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)),
                          kExitUsage);
    if (!S_ISREG(st.st_mode))
        return make_error(fmt::format("{}: {}, not a regular file: fabscope reads only regular "
                                      "files (or - for standard input where a command takes it)",
                                      path, non_regular_kind(st.st_mode)),
                          kExitUsage);
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

// Reads all of `fd`, refusing more than `max` bytes, whatever size it claims.
Result<std::string> read_fd_at_most(int fd, uint64_t max, const std::string& origin) {
    std::string text;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        if (static_cast<uint64_t>(st.st_size) > max)
            return make_error(
                fmt::format("{}: the file is {}, more than the {} fabscope reads", origin,
                            format_bytes(static_cast<uint64_t>(st.st_size)), format_bytes(max)),
                kExitUsage);
        text.reserve(static_cast<size_t>(st.st_size));
    }
    char buf[1 << 16];
    for (;;) {
        const ssize_t got = ::read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            return make_error(fmt::format("{}: read error: {}", origin, std::strerror(errno)),
                              kExitUsage);
        if (got == 0) return text;
        text.append(buf, static_cast<size_t>(got));
        if (text.size() > max)
            return make_error(
                fmt::format("{}: more than the {} fabscope reads", origin, format_bytes(max)),
                kExitUsage);
    }
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, uint64_t max) {
    try {
        if (path == "-") return read_fd_at_most(STDIN_FILENO, max, "<stdin>");
        auto fd = open_regular(path);
        if (!fd) return fd.error();
        return read_fd_at_most(fd->get(), max, path);
    } catch (const std::bad_alloc&) {
        return out_of_memory(path);
    }
}

Status check_regular_input(const std::string& path) {
    auto fd = open_regular(path);
    if (!fd) return fd.error();
    return Ok{};
}

const char* non_regular_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

Error out_of_memory(const std::string& path) {
    std::error_code ec;
    uint64_t size = path == "-" ? 0 : std::filesystem::file_size(path, ec);
    // What the load had: the memory it held is given back by now, so what is
    // available again is what it started with.
    std::optional<uint64_t> left = available_memory_bytes();
    std::string figures;
    if (!ec && size != 0) figures = fmt::format("the file is {}", format_bytes(size));
    if (left)
        figures += fmt::format("{}{} of memory available", figures.empty() ? "" : ", ",
                               format_bytes(*left));
    return make_error(fmt::format("{}: out of memory while loading it{}: give fabscope more "
                                  "memory (ulimit -v, the cgroup) or a smaller file",
                                  path, figures.empty() ? "" : " (" + figures + ")"),
                      kExitUsage);
}

}  // namespace fabscope
