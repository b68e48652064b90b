#include "host/sysfs_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fabscope::host {

namespace fs = std::filesystem;

BoundedRead read_bounded(const fs::path& path, uint64_t max) {
    BoundedRead r;
    // O_NONBLOCK: a FIFO planted in a fixture tree must not hang the read.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        r.err_no = errno;
        if (errno != ENOENT && errno != ENOTDIR) r.error = std::strerror(errno);
        return r;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        r.error = "not a regular file";
        return r;
    }
    std::string text;
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            // sysfs answers EINVAL or EIO for attributes the driver cannot give.
            r.err_no = errno;
            r.error = std::strerror(errno);
            ::close(fd);
            return r;
        }
        if (n == 0) break;
        text.append(buf, static_cast<size_t>(n));
        if (text.size() > max) {
            ::close(fd);
            r.error = "larger than " + std::to_string(max) + " bytes";
            return r;
        }
    }
    ::close(fd);
    r.text = std::move(text);
    return r;
}

fs::path SysfsFiles::full(const fs::path& rel) const {
    return root_ / rel.relative_path();
}

std::optional<std::string> SysfsFiles::read(const fs::path& rel, bool required) {
    fs::path p = full(rel);
    BoundedRead r = read_bounded(p, kMaxAttrBytes);
    if (!r.text) {
        if (!r.error.empty()) {
            problems_.push_back({p.string(), "cannot read: " + r.error});
        } else if (required) {
            problems_.push_back({p.string(), "missing"});
        }
        return std::nullopt;
    }
    std::string& t = *r.text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\t' ||
                          t.back() == '\r' || t.back() == '\0'))
        t.pop_back();
    if (t.find('\0') != std::string::npos) {
        problems_.push_back({p.string(), "binary data where text was expected"});
        return std::nullopt;
    }
    return t;
}

void SysfsFiles::bad_value(const fs::path& rel, const std::string& message) {
    problems_.push_back({full(rel).string(), message});
}

std::vector<std::string> SysfsFiles::list(const fs::path& rel, bool required) {
    std::vector<std::string> names;
    fs::path p = full(rel);
    // opendir(3), not std::filesystem (which opens with openat + fdopendir):
    // the simulator's preload library (umad2sim) serves its sysfs tree to
    // open() and opendir() only.
    DIR* dir = ::opendir(p.c_str());
    if (!dir) {
        int e = errno;
        if (e != ENOENT || required)
            problems_.push_back({p.string(), std::string("cannot list: ") + std::strerror(e)});
        return names;
    }
    // A directory with more entries than any host has is a broken tree.
    constexpr size_t kMaxDirEntries = 4096;
    while (const dirent* entry = ::readdir(dir)) {  // NOLINT(concurrency-mt-unsafe)
        std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        if (names.size() >= kMaxDirEntries) {
            problems_.push_back({p.string(), "more than 4096 entries; the rest ignored"});
            break;
        }
        names.push_back(std::move(name));
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

fs::path SysfsFiles::resolve(const fs::path& rel) {
    std::error_code ec;
    fs::path p = full(rel);
    fs::path real = fs::canonical(p, ec);
    if (ec) return {};
    fs::path base = fs::weakly_canonical(root_ / "sys" / "devices", ec);
    if (ec) return {};
    // The link must stay inside the tree: a fixture's absolute link to the
    // live /sys would mix two hosts.
    auto [b, r] = std::mismatch(base.begin(), base.end(), real.begin(), real.end());
    if (b != base.end()) {
        problems_.push_back({p.string(), "links outside " + base.string()});
        return {};
    }
    return real.lexically_relative(base);
}

}  // namespace fabscope::host
