#include "util/interrupt.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

#include "util/exit_status.h"

namespace fabscope {

StopToken::StopToken(const StopToken* parent)
    : parent_(parent), fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

StopToken::~StopToken() {
    if (fd_ >= 0) ::close(fd_);
}

void StopToken::request_stop(int signal_number) {
    if (signal_number != 0) signal_.store(signal_number);
    stopped_.store(true);
    if (fd_ >= 0) {
        const uint64_t one = 1;
        // Readable from now on; a full counter (never, in practice) changes nothing.
        [[maybe_unused]] ssize_t n = ::write(fd_, &one, sizeof one);
    }
}

bool StopToken::stop_requested() const {
    return stopped_.load() || (parent_ != nullptr && parent_->stop_requested());
}

int StopToken::signal_number() const {
    int s = signal_.load();
    return s != 0 || parent_ == nullptr ? s : parent_->signal_number();
}

bool StopToken::sleep_for(std::chrono::milliseconds d) const {
    const auto end = std::chrono::steady_clock::now() + d;
    for (;;) {
        if (stop_requested()) return false;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              end - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) return true;
        pollfd fds[2] = {{fd_, POLLIN, 0}, {parent_ ? parent_->fd() : -1, POLLIN, 0}};
        // Capped, so a token without an eventfd (fd exhaustion) still notices.
        ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 200)));
    }
}

void StopToken::reset() {
    stopped_.store(false);
    signal_.store(0);
    if (fd_ >= 0) {
        uint64_t v = 0;
        [[maybe_unused]] ssize_t n = ::read(fd_, &v, sizeof v);
    }
}

StopToken& interrupt_token() {
    static StopToken token;
    return token;
}

namespace {

extern "C" void on_interrupt(int sig) {
    StopToken& t = interrupt_token();
    if (t.stop_requested()) {
        // The second signal: the user cannot wait for the deadlines.
        ::_exit(kExitInterrupted);
    }
    t.request_stop(sig);
}

}  // namespace

void install_interrupt_handlers() {
    (void)interrupt_token();  // constructed outside the handler
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

void restore_default_handlers() {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
}

}  // namespace fabscope
