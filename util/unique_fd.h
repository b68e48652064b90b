#pragma once
// A file descriptor owned by one scope: closed when it goes, unless released.

#include <unistd.h>

#include <utility>

namespace fabscope {

class UniqueFd {
  public:
    explicit UniqueFd(int fd) : fd_(fd) {}
    ~UniqueFd() {
        if (fd_ >= 0) ::close(fd_);
    }
    UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&&) = delete;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    int get() const { return fd_; }
    /// Gives up ownership: the caller closes it (and sees close's error).
    int release() { return std::exchange(fd_, -1); }

  private:
    int fd_;
};

}  // namespace fabscope
