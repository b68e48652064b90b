#pragma once
// The asynchronous MAD engine: a window of Gets in flight, a deadline per
// attempt, retries with backoff, replies matched by transaction ID, and a
// failure budget per path so that a dead node costs one timeout, not one per
// port or node behind it. It never blocks on a reply: the simulator answers
// nothing late, the real fabric may answer nothing at all.
//
// Shape after libibnetdisc's query_smp.c: submit(request, callback) queues,
// run() pumps until no work is left; callbacks submit follow-up requests.

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "discover/mad_format.h"
#include "discover/mad_transport.h"
#include "model/snapshot.h"
#include "util/interrupt.h"

namespace fabscope {

struct EngineOptions {
    size_t window = 64;                      ///< MADs in flight at most
    std::chrono::milliseconds timeout{200};  ///< first attempt's deadline
    int retries = 2;                         ///< attempts after the first
    double backoff = 2.0;                    ///< deadline multiplier per retry
    int failure_budget = 1;                  ///< requests to a path that may fail before it is dead
    /// When it is stopped (Ctrl-C), nothing new is sent and no attempt is
    /// retried; what is in flight finishes or fails within its deadline, and
    /// everything else ends Cancelled. Not owned; may be null.
    const StopToken* stop = nullptr;
};

struct MadResult {
    enum class Outcome {
        Ok,           ///< GetResp with status 0
        BadStatus,    ///< GetResp with a non-zero status (unsupported attribute, ...)
        Timeout,      ///< no usable answer after every attempt
        Unreachable,  ///< not sent: its path, or a node on it, was already dead
        SendFailed,   ///< the transport refused it
        Cancelled,    ///< not sent, or not retried, because the run was stopped
    };
    Outcome outcome = Outcome::Timeout;
    uint16_t mad_status = 0;
    MadBytes reply{};
    int attempts = 0;
    std::string detail;  ///< for failures: what happened, for people
    /// Timeout: the last attempt was reported lost on the way (dropped at a
    /// port), not merely unanswered. The link is there; MADs do not cross it.
    bool lost = false;
    bool ok() const { return outcome == Outcome::Ok; }
};

using EngineStats = MadStats;

class MadEngine {
  public:
    using Callback = std::function<void(const MadResult&)>;

    MadEngine(MadTransport& transport, const Clock& clock, EngineOptions options);

    /// Queues a Get. Failures are charged to the request's path (its DR path,
    /// or "lid:N"); a request is not sent if its path, a prefix of its DR
    /// path, or any of `also_depends_on` is dead.
    void submit(const mad::Request& request, Callback done,
                std::vector<std::string> also_depends_on = {});
    /// Queues a Get of an optional attribute, one a node may ignore without
    /// being dead (PortVLXmitWaitCounters): its failure is not charged to
    /// its path, so it never makes the node's other requests unreachable.
    void submit_optional(const mad::Request& request, Callback done,
                         std::vector<std::string> also_depends_on = {});
    /// Pumps until every request, including those submitted from callbacks, is done.
    void run();
    /// Queues more requests when asked: true if it queued any.
    using Feeder = std::function<bool()>;
    /// The same, asking `feed` for more whenever fewer than `low_water` are
    /// queued (and it is done only when `feed` has nothing more either): a
    /// pass over thousands of ports holds a few hundred requests, not all.
    void run(const Feeder& feed, size_t low_water = 512);
    /// Declares a path dead: queued and in-flight requests through it fail now.
    void mark_dead(const std::string& key, const std::string& why);
    bool is_dead(const std::string& key) const { return dead_.count(key) != 0; }

    /// The chain depth of the answer being handled (0 outside a callback).
    /// Work deferred from a callback keeps it and is submitted under a
    /// ChainOf, so its requests count as waiting for that answer.
    int chain_depth() const { return current_depth_; }
    class ChainOf {
      public:
        ChainOf(MadEngine& e, int depth) : e_(e), saved_(e.current_depth_) {
            e.current_depth_ = depth;
        }
        ~ChainOf() { e_.current_depth_ = saved_; }
        ChainOf(const ChainOf&) = delete;
        ChainOf& operator=(const ChainOf&) = delete;

      private:
        MadEngine& e_;
        int saved_;
    };
    const EngineStats& stats() const { return stats_; }
    /// True once the stop token stopped the run and at least one request was cancelled.
    bool cancelled() const { return cancelled_ != 0; }
    const EngineOptions& options() const { return options_; }
    const Clock& clock() const { return clock_; }

    /// The failure key of a path: "dr:1,5,3" or "lid:17".
    static std::string key_of(const mad::Address& a);

  private:
    struct Pending {
        mad::Request request;
        Callback done;
        /// Besides the keys of its address (the address's own is charged
        /// with a failure; every prefix of a directed route is checked).
        std::vector<std::string> also_depends_on;
        int depth = 0;
        int attempts = 0;
        uint64_t current_tid = 0;
        std::vector<uint64_t> tids;
        Clock::time_point deadline{};
        bool last_lost = false;  // the newest attempt was reported lost, not just unanswered
        bool charged = true;     // a failure counts against its address's budget
    };

    void fill_window();
    void send_attempt(uint64_t id);
    void on_receive(const ReceivedMad& r);
    void expire(Clock::time_point now);
    void attempt_failed(uint64_t id, const std::string& why);
    void complete(uint64_t id, const MadResult& result);
    bool blocked(const Pending& p, std::string* why) const;
    bool stopping() const { return options_.stop != nullptr && options_.stop->stop_requested(); }
    void cancel(uint64_t id);
    std::chrono::milliseconds attempt_timeout(int attempt) const;

    MadTransport& transport_;
    const Clock& clock_;
    EngineOptions options_;
    EngineStats stats_;
    uint64_t next_id_ = 1;
    uint32_t next_tid_ = 1;
    int current_depth_ = 0;
    uint64_t cancelled_ = 0;
    std::deque<uint64_t> queue_;
    std::unordered_map<uint64_t, Pending> pending_;  // queued and in flight, by id
    std::set<uint64_t> in_flight_;
    std::unordered_map<uint32_t, uint64_t> by_tid_;  // low 32 bits of every attempt's TID -> id
    std::map<std::string, int> failures_;
    std::map<std::string, std::string> dead_;
};

}  // namespace fabscope
