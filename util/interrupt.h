#pragma once
// Stopping work without losing what was measured. A StopToken is asked to
// stop once; every loop that may run long (the MAD engine's pump, a perf
// test, the wait between two counter readings, the TUI's poller) checks it,
// stops starting new work, lets what is in flight finish or fail within its
// own deadline, and returns what it has, marked incomplete.
//
// The process has one token tied to SIGINT and SIGTERM (interrupt_token()):
// the first signal requests a stop, the command writes its report so far and
// exits 130; a second signal ends the process at once with 130, for the
// user who cannot wait for the deadlines.
//
// A token may have a parent: it counts as stopped when either is, so a
// poller's own token (the user quit the TUI) also stops on Ctrl-C.

#include <atomic>
#include <chrono>

namespace fabscope {

class StopToken {
  public:
    explicit StopToken(const StopToken* parent = nullptr);
    ~StopToken();
    StopToken(const StopToken&) = delete;
    StopToken& operator=(const StopToken&) = delete;

    /// Async-signal-safe: a flag and one write to an eventfd.
    void request_stop(int signal_number = 0);
    bool stop_requested() const;
    /// The signal that requested the stop (SIGINT, SIGTERM), 0 if none did.
    int signal_number() const;
    /// Sleeps up to `d`, waking early when a stop is requested. True if it
    /// slept the whole time, false if it was stopped.
    bool sleep_for(std::chrono::milliseconds d) const;
    /// Readable once a stop is requested (for poll loops); never read from it.
    int fd() const { return fd_; }
    /// Tests only: back to not stopped.
    void reset();

  private:
    const StopToken* parent_;
    std::atomic<bool> stopped_{false};
    std::atomic<int> signal_{0};
    int fd_ = -1;
};

/// The process's token. install_interrupt_handlers() connects it to SIGINT
/// and SIGTERM (idempotent); commands that keep partial results call it
/// before their long work starts.
StopToken& interrupt_token();
void install_interrupt_handlers();
/// Forgets the handlers (the TUI sets its own while the screen is up).
void restore_default_handlers();

}  // namespace fabscope
