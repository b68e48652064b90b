#pragma once
// Reads the fabric on a thread of its own, so that the screen never waits
// for it: each reading is folded into new data, published for the next
// frame. A slow or dead fabric only makes the data older (the frame says how
// old); the keys keep working.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "tui/tui_data.h"
#include "util/result.h"

namespace fabscope::tui {

/// Where readings come from: the live fabric (a sweep with counters), or
/// snapshot files one after another.
class FabricSource {
  public:
    virtual ~FabricSource() = default;
    /// One reading. Bounded in time: a live source has its MAD deadlines.
    virtual Result<Reading> read() = 0;
    /// False once a file source has given every file.
    virtual bool more() const = 0;
};

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
    /// Asks the thread to stop and waits up to `wait` for it; false if it is
    /// still inside a reading (the caller may then exit without it).
    bool stop(Millis wait);

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
    bool stop_ = false;
    bool now_ = false;
    bool paused_ = false;
    std::atomic<uint64_t> generation_{0};
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace fabscope::tui
