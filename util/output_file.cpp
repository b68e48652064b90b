#include "util/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <utility>
#include <vector>

#include "util/exit_status.h"
#include "util/input_file.h"
#include "util/unique_fd.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

/// A stream buffer over a descriptor: the writer's text goes to the file in
/// 64 KiB writes, so a large document is never held whole in memory.
class FdBuf : public std::streambuf {
  public:
    explicit FdBuf(int fd) : fd_(fd) { setp(buf_.data(), buf_.data() + buf_.size()); }
    FdBuf(const FdBuf&) = delete;
    FdBuf& operator=(const FdBuf&) = delete;
    ~FdBuf() override = default;
    int error() const { return error_; }

  protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

  private:
    bool drain() {
        const char* p = pbase();
        while (p < pptr()) {
            const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                error_ = errno;
                return false;
            }
            p += n;
        }
        setp(buf_.data(), buf_.data() + buf_.size());
        return true;
    }
    int fd_;
    int error_ = 0;
    std::array<char, 1 << 16> buf_{};
};

Error refused(const std::string& path, const std::string& why) {
    return make_error(fmt::format("{}: {}", path, why), kExitUsage);
}

/// The temporary file: removed when it goes, unless it became the target.
struct TempFile {
    explicit TempFile(std::string p) : path(std::move(p)) {}
    std::string path;
    bool keep = false;
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile() {
        if (!keep) ::unlink(path.c_str());
    }
};

mode_t process_umask() {
    const mode_t m = ::umask(0);
    ::umask(m);
    return m;
}

/// The file to replace (the target, or where a symlink to a regular file
/// points) and the mode the new one takes; an error for anything else.
Result<std::pair<std::string, mode_t>> target_of(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno != ENOENT)
            return refused(path, fmt::format("cannot write: {}", std::strerror(errno)));
        return std::pair{path, static_cast<mode_t>(0666 & ~process_umask())};  // a new file
    }
    std::string real = path;
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        real = fs::canonical(path, ec).string();
        if (ec || ::stat(real.c_str(), &st) != 0)
            return refused(path,
                           "a symbolic link to nothing: fabscope replaces only regular "
                           "files (or one a link points at)");
    }
    if (!S_ISREG(st.st_mode))
        return refused(path, fmt::format("{}, not a regular file: fabscope replaces only regular "
                                         "files; name another output",
                                         non_regular_kind(st.st_mode)));
    // Read-only by its mode (which root's access() would not say), or to us.
    if ((st.st_mode & 0222) == 0 || ::access(real.c_str(), W_OK) != 0)
        return refused(path, fmt::format("read-only (mode {:04o}): fabscope does not replace a "
                                         "file that may not be written; remove it or name another",
                                         st.st_mode & 07777));
    return std::pair{real, static_cast<mode_t>(st.st_mode & 07777)};
}

}  // namespace

Status replace_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
    auto target = target_of(path);
    if (!target) return target.error();
    const auto& [real, mode] = *target;
    const fs::path dir = fs::path(real).parent_path();
    // Hidden, beside the target (so rename stays on one file system), random.
    const std::string name = ((dir.empty() ? fs::path(".") : dir) /
                              fmt::format(".{}.XXXXXX", fs::path(real).filename().string()))
                                 .string();
    std::vector<char> tmpl(name.begin(), name.end());
    tmpl.push_back('\0');
    UniqueFd fd(::mkostemp(tmpl.data(), O_CLOEXEC));  // O_CREAT|O_EXCL, 0600
    if (fd.get() < 0) return refused(path, fmt::format("cannot write: {}", std::strerror(errno)));
    TempFile tmp{tmpl.data()};
    auto failed = [&](const char* what, int err) {
        return refused(path, fmt::format("{}: {}", what, std::strerror(err)));
    };
    FdBuf buf(fd.get());
    {
        std::ostream out(&buf);
        write(out);
        out.flush();
        if (!out) return failed("write failed", buf.error() != 0 ? buf.error() : EIO);
    }
    if (::fchmod(fd.get(), mode) != 0) return failed("cannot set its mode", errno);
    if (::fsync(fd.get()) != 0) return failed("write failed", errno);
    if (::close(fd.release()) != 0) return failed("write failed", errno);
    if (::rename(tmp.path.c_str(), real.c_str()) != 0) return failed("cannot replace", errno);
    tmp.keep = true;
    return Ok{};
}

}  // namespace fabscope
