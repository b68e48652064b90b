#include "util/stderr_capture.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace fabscope {

StderrCapture::StderrCapture() {
    std::fflush(stderr);
    char path[] = "/tmp/fabscope-stderr-XXXXXX";
    file_fd_ = ::mkstemp(path);
    if (file_fd_ < 0) return;  // capture is best effort: output then just goes to stderr
    ::unlink(path);
    saved_fd_ = ::dup(STDERR_FILENO);
    if (saved_fd_ < 0 || ::dup2(file_fd_, STDERR_FILENO) < 0) {
        ::close(file_fd_);
        file_fd_ = -1;
    }
}

StderrCapture::~StderrCapture() {
    finish();
}

std::string StderrCapture::finish() {
    if (file_fd_ < 0) return text_;
    std::fflush(stderr);
    ::dup2(saved_fd_, STDERR_FILENO);
    ::close(saved_fd_);
    ::lseek(file_fd_, 0, SEEK_SET);
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::read(file_fd_, buf, sizeof buf)) > 0) text_.append(buf, static_cast<size_t>(n));
    ::close(file_fd_);
    file_fd_ = -1;
    saved_fd_ = -1;
    return text_;
}

}  // namespace fabscope
