#pragma once
// Reads the fabric on a thread of its own, so that the screen never waits
// for it: each reading is folded into new data, published for the next
// frame. A slow or dead fabric only makes the data older (the frame says how
// old); the keys keep working. The thread is always joined: stopping (or
// Ctrl-C, through the process's interrupt token) cancels the reading in
// flight, which then ends within its deadlines.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "tui/source.h"
#include "tui/tui_data.h"
#include "util/interrupt.h"

namespace fabscope::tui {

class Poller {
  public:
    using Millis = std::chrono::milliseconds;
    /// `on_reload`: called between readings to refresh the perf reports (may be empty).
    Poller(std::unique_ptr<FabricSource> source, DataBuilder builder, Millis interval,
           std::function<void(DataBuilder&)> on_reload = {});
    ~Poller();
    Poller(const Poller&) = delete;
    Poller& operator=(const Poller&) = delete;

    void start();
    /// Cancels the reading in flight and joins the thread.
    void stop();

    /// The newest data (null before the first reading); never blocks on the fabric.
    std::shared_ptr<const TuiData> latest() const;
    /// Bumped whenever latest() changes.
    uint64_t generation() const { return generation_.load(); }
    /// A reading in progress: since when (steady clock), else nullopt.
    std::optional<std::chrono::steady_clock::time_point> reading_since() const;

    void read_now();
    void set_paused(bool paused);

  private:
    void run();
    void publish(std::shared_ptr<const TuiData> d);

    std::unique_ptr<FabricSource> source_;
    DataBuilder builder_;
    Millis interval_;
    std::function<void(DataBuilder&)> on_reload_;
    mutable std::mutex mu_;
    std::condition_variable wake_;
    std::shared_ptr<const TuiData> latest_;
    std::optional<std::chrono::steady_clock::time_point> reading_since_;
    StopToken stop_{&interrupt_token()};  ///< ours (quit), or the process's (Ctrl-C)
    bool now_ = false;
    bool paused_ = false;
    std::atomic<uint64_t> generation_{0};
    std::thread thread_;
};

}  // namespace fabscope::tui
