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
    stop();
}

void Poller::start() {
    {
        std::lock_guard lock(mu_);
        reading_since_ = std::chrono::steady_clock::now();  // the first reading starts now
    }
    thread_ = std::thread([this] { run(); });
}

void Poller::stop() {
    stop_.request_stop();
    {
        // Taken so the thread is either before its check or inside wait: no lost wake-up.
        std::lock_guard lock(mu_);
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
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
    // The process's token has no condition variable to wake: look at it this often.
    constexpr Millis kLook(100);
    for (;;) {
        std::chrono::steady_clock::time_point began;
        {
            std::lock_guard lock(mu_);
            if (stop_.stop_requested()) break;
            began = std::chrono::steady_clock::now();
            reading_since_ = began;
            now_ = false;
        }
        if (on_reload_) on_reload_(builder_);
        auto r = source_->read(stop_);
        if (stop_.stop_requested()) break;  // cut short: not a reading to show
        if (r) {
            publish(builder_.add(*r));
        } else {
            publish(builder_.failed(r.error().message, unix_millis_now()));
        }
        std::unique_lock lock(mu_);
        reading_since_.reset();
        if (!source_->more()) {
            // Files: every one read; wait for the end.
            while (!stop_.stop_requested()) wake_.wait_for(lock, kLook);
            break;
        }
        // Live: the next reading an interval after this one began, at once on
        // `r`, never while paused.
        const auto next = began + interval_;
        for (;;) {
            const auto now = std::chrono::steady_clock::now();
            if (stop_.stop_requested() || now_ || (!paused_ && now >= next)) break;
            const auto left = std::chrono::ceil<Millis>(next - now);
            wake_.wait_for(lock, paused_ ? kLook : std::min(kLook, left));
        }
    }
}

}  // namespace fabscope::tui
