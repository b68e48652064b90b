#include "discover/mad_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fabscope {
namespace {

// The simulator (umad2sim) overwrites the TID's upper 32 bits with its agent
// and client ids; the kernel uses them for its agent. Match on the lower 32.
uint32_t tid_low(uint64_t tid) {
    return static_cast<uint32_t>(tid);
}

std::vector<std::string> keys_for(const mad::Address& a) {
    std::vector<std::string> keys{MadEngine::key_of(a)};
    if (a.directed()) {
        // Every node on the way: a dead one blocks everything behind it.
        for (size_t n = a.dr_path.size(); n-- > 1;) {
            mad::Address prefix{
                std::vector<uint8_t>(a.dr_path.begin(), a.dr_path.begin() + static_cast<long>(n)),
                0};
            keys.push_back(MadEngine::key_of(prefix));
        }
    }
    return keys;
}

}  // namespace

MadEngine::MadEngine(MadTransport& transport, const Clock& clock, EngineOptions options)
    : transport_(transport), clock_(clock), options_(options) {
    options_.window = std::max<size_t>(1, options_.window);
    options_.retries = std::max(0, options_.retries);
    options_.failure_budget = std::max(1, options_.failure_budget);
}

std::string MadEngine::key_of(const mad::Address& a) {
    if (!a.directed()) return fmt::format("lid:{}", a.lid);
    std::string k = "dr:";
    for (size_t i = 0; i < a.dr_path.size(); ++i)
        k += fmt::format("{}{}", i ? "," : "", a.dr_path[i]);
    return k;
}

void MadEngine::submit(const mad::Request& request, Callback done,
                       std::vector<std::string> also_depends_on) {
    uint64_t id = next_id_++;
    Pending p;
    p.request = request;
    p.done = std::move(done);
    p.also_depends_on = std::move(also_depends_on);
    p.depth = current_depth_ + 1;
    pending_.emplace(id, std::move(p));
    queue_.push_back(id);
}

void MadEngine::submit_optional(const mad::Request& request, Callback done,
                                std::vector<std::string> also_depends_on) {
    const uint64_t id = next_id_;
    submit(request, std::move(done), std::move(also_depends_on));
    pending_.at(id).charged = false;
}

bool MadEngine::blocked(const Pending& p, std::string* why) const {
    // The keys are made only when something has been given up on: a sweep
    // of thousands of queued requests holds none of them.
    if (dead_.empty()) return false;
    auto check = [&](const std::string& k) {
        auto it = dead_.find(k);
        if (it == dead_.end()) return false;
        if (why) *why = it->second;
        return true;
    };
    for (const std::string& k : keys_for(p.request.to)) {
        if (check(k)) return true;
    }
    for (const std::string& k : p.also_depends_on) {
        if (check(k)) return true;
    }
    return false;
}

std::chrono::milliseconds MadEngine::attempt_timeout(int attempt) const {
    double t = static_cast<double>(options_.timeout.count()) * std::pow(options_.backoff, attempt);
    return std::chrono::milliseconds(static_cast<long>(std::max(1.0, t)));
}

void MadEngine::fill_window() {
    while (in_flight_.size() < options_.window && !queue_.empty()) {
        uint64_t id = queue_.front();
        queue_.pop_front();
        Pending& p = pending_.at(id);
        if (stopping()) {
            cancel(id);
            continue;
        }
        std::string why;
        if (blocked(p, &why)) {
            ++stats_.unreachable;
            complete(id, MadResult{MadResult::Outcome::Unreachable, 0, {}, 0, why});
            continue;
        }
        in_flight_.insert(id);
        send_attempt(id);
    }
}

void MadEngine::send_attempt(uint64_t id) {
    Pending& p = pending_.at(id);
    uint64_t tid = next_tid_++;
    if (next_tid_ == 0) next_tid_ = 1;
    by_tid_[tid_low(tid)] = id;
    p.current_tid = tid;
    p.tids.push_back(tid);
    auto timeout = attempt_timeout(p.attempts);
    ++p.attempts;
    p.deadline = clock_.now() + timeout;
    ++stats_.sent;
    if (p.attempts > 1) ++stats_.retries;
    if (auto s = transport_.send(p.request.to, mad::encode_get(p.request, tid), timeout); !s) {
        complete(id,
                 MadResult{MadResult::Outcome::SendFailed, 0, {}, p.attempts, s.error().message});
    }
}

void MadEngine::cancel(uint64_t id) {
    ++cancelled_;
    complete(id, MadResult{MadResult::Outcome::Cancelled,
                           0,
                           {},
                           pending_.at(id).attempts,
                           "stopped (interrupted) before it was answered"});
}

void MadEngine::run() {
    run(Feeder{});
}

void MadEngine::run(const Feeder& feed, size_t low_water) {
    for (;;) {
        while (feed && !stopping() && queue_.size() < low_water && feed()) {
        }
        fill_window();
        if (in_flight_.empty()) {
            if (queue_.empty()) return;
            continue;
        }
        Clock::time_point next = Clock::time_point::max();
        for (uint64_t id : in_flight_) next = std::min(next, pending_.at(id).deadline);
        auto now = clock_.now();
        auto wait = next > now ? std::chrono::ceil<std::chrono::milliseconds>(next - now)
                               : std::chrono::milliseconds(0);
        if (auto r = transport_.receive(wait)) on_receive(*r);
        expire(clock_.now());
    }
}

void MadEngine::on_receive(const ReceivedMad& r) {
    mad::Header h = mad::decode_header(r.mad);
    auto it = by_tid_.find(tid_low(h.tid));
    if (it == by_tid_.end() || !pending_.count(it->second)) {
        ++stats_.stray;
        return;
    }
    uint64_t id = it->second;
    Pending& p = pending_.at(id);
    if (r.transport_status != 0) {
        // Lost on the way (the simulator's "110"; the kernel's ETIMEDOUT).
        // Only the newest attempt's loss counts: an older one was already retried.
        ++stats_.dropped;
        if (tid_low(h.tid) == tid_low(p.current_tid)) {
            p.last_lost = true;
            attempt_failed(
                id, fmt::format("lost on the way (transport status {})", r.transport_status));
        }
        return;
    }
    if (h.base_version != 1 || h.method != mad::kMethodGetResp ||
        h.mgmt_class != p.request.mgmt_class || h.attr_id != p.request.attr_id ||
        h.attr_mod != p.request.attr_mod) {
        // Not an answer to this request: ignore it; the request keeps waiting.
        ++stats_.garbage;
        return;
    }
    if (h.status == 0x0001) {  // busy: ask again after the deadline
        return;
    }
    ++stats_.answered;
    MadResult res;
    res.outcome = h.status == 0 ? MadResult::Outcome::Ok : MadResult::Outcome::BadStatus;
    res.mad_status = h.status;
    res.reply = r.mad;
    res.attempts = p.attempts;
    if (h.status != 0) res.detail = mad::status_name(h.status);
    complete(id, res);
}

void MadEngine::expire(Clock::time_point now) {
    std::vector<uint64_t> due;
    for (uint64_t id : in_flight_) {
        if (pending_.at(id).deadline <= now) due.push_back(id);
    }
    for (uint64_t id : due) {
        if (pending_.count(id)) {
            pending_.at(id).last_lost = false;
            attempt_failed(id, "no answer");
        }
    }
}

void MadEngine::attempt_failed(uint64_t id, const std::string& why) {
    Pending& p = pending_.at(id);
    if (stopping()) {
        // No retry after a stop: this attempt had its deadline, the answer is "cancelled".
        cancel(id);
        return;
    }
    if (p.attempts <= options_.retries) {
        std::string dead_why;
        if (!blocked(p, &dead_why)) {
            send_attempt(id);
            return;
        }
        ++stats_.unreachable;
        complete(id, MadResult{MadResult::Outcome::Unreachable, 0, {}, p.attempts, dead_why});
        return;
    }
    ++(p.charged ? stats_.timeouts : stats_.optional_unanswered);
    std::string key = key_of(p.request.to);
    const bool charged = p.charged;
    std::string where = p.request.to.str();
    std::string detail = fmt::format("{} after {} attempt{} ({})", why, p.attempts,
                                     p.attempts == 1 ? "" : "s", where);
    complete(id, MadResult{MadResult::Outcome::Timeout, 0, {}, p.attempts, detail, p.last_lost});
    if (charged && ++failures_[key] >= options_.failure_budget) {
        mark_dead(key, fmt::format("given up on {}: {}", where, detail));
    }
}

void MadEngine::mark_dead(const std::string& key, const std::string& why) {
    if (!dead_.emplace(key, why).second) return;
    std::vector<uint64_t> doomed;
    for (uint64_t id : in_flight_) {
        if (blocked(pending_.at(id), nullptr)) doomed.push_back(id);
    }
    for (uint64_t id : doomed) {
        if (!pending_.count(id)) continue;
        ++stats_.unreachable;
        complete(id,
                 MadResult{MadResult::Outcome::Unreachable, 0, {}, pending_.at(id).attempts, why});
    }
    // Queued ones are failed when they reach the window (fill_window checks).
}

void MadEngine::complete(uint64_t id, const MadResult& result) {
    auto node = pending_.extract(id);
    if (node.empty()) return;
    Pending& p = node.mapped();
    in_flight_.erase(id);
    for (uint64_t tid : p.tids) {
        auto it = by_tid_.find(tid_low(tid));
        if (it != by_tid_.end() && it->second == id) by_tid_.erase(it);
    }
    if (p.attempts > 0) stats_.max_chain = std::max(stats_.max_chain, p.depth);
    int saved = current_depth_;
    current_depth_ = p.depth;
    p.done(result);
    current_depth_ = saved;
}

}  // namespace fabscope
