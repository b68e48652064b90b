#include "tui/poller.h"

#include "util/time_util.h"

namespace fabscope::tui {

Poller::Poller(std::unique_ptr<FabricSource> source, DataBuilder builder, Millis interval,
               std::function<void(DataBuilder&)> on_reload)
    : source_(std::move(source)),
      builder_(std::move(builder)),
      interval_(interval),
      on_reload_(std::move(on_reload)) {}

Poller::~Poller() {
    if (thread_.joinable()) {
        stop(Millis(0));
        if (done_.load()) {
            thread_.join();
        } else {
            thread_.detach();  // still inside a reading; the process is exiting
        }
    }
}

void Poller::start() {
    {
        std::lock_guard lock(mu_);
        reading_since_ = std::chrono::steady_clock::now();  // the first reading starts now
    }
    thread_ = std::thread([this] { run(); });
}

bool Poller::stop(Millis wait) {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (!done_.load() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(Millis(10));
    if (done_.load() && thread_.joinable()) thread_.join();
    return done_.load();
}

std::shared_ptr<const TuiData> Poller::latest() const {
    std::lock_guard lock(mu_);
    return latest_;
}

std::optional<std::chrono::steady_clock::time_point> Poller::reading_since() const {
    std::lock_guard lock(mu_);
    return reading_since_;
}

void Poller::read_now() {
    {
        std::lock_guard lock(mu_);
        now_ = true;
    }
    wake_.notify_all();
}

void Poller::set_paused(bool paused) {
    {
        std::lock_guard lock(mu_);
        paused_ = paused;
    }
    wake_.notify_all();
}

void Poller::publish(std::shared_ptr<const TuiData> d) {
    {
        std::lock_guard lock(mu_);
        latest_ = std::move(d);
    }
    ++generation_;
}

void Poller::run() {
    for (;;) {
        {
            std::lock_guard lock(mu_);
            if (stop_) break;
            reading_since_ = std::chrono::steady_clock::now();
            now_ = false;
        }
        if (on_reload_) on_reload_(builder_);
        auto r = source_->read();
        if (r) {
            publish(builder_.add(*r));
        } else {
            publish(builder_.failed(r.error().message, unix_millis_now()));
        }
        std::unique_lock lock(mu_);
        reading_since_.reset();
        if (!source_->more()) {
            // Files: every one read; wait for the end.
            wake_.wait(lock, [&] { return stop_; });
            break;
        }
        // Live: the next reading an interval after this one began (or at once on `r`).
        wake_.wait_for(lock, interval_, [&] { return stop_ || (now_ && !paused_); });
        while (paused_ && !stop_ && !now_) wake_.wait(lock);
        if (stop_) break;
    }
    done_.store(true);
}

}  // namespace fabscope::tui
