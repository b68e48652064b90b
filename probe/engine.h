#pragma once
// The probe agent's engine: one thread owns it and the UD port. Each
// interval it sends `count` probes to every peer of the round's pinglist,
// spread evenly over the interval; it answers the probes of agents that said
// hello to it; an answer not back within `timeout` is a lost probe. At the
// end of an interval every peer's and leaf pair's window is judged
// (probe/judge.h) and the interval's snapshot handed out for /metrics and
// the JSON. Who is reachable comes from outside (the hellos, probe/hello.h):
// learn_source() and learn_peer() are called by the owning thread.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/finding.h"
#include "probe/history.h"
#include "probe/judge.h"
#include "probe/pinglist.h"
#include "rdma/ud_port.h"
#include "util/clock.h"
#include "util/result.h"

namespace fabscope::probe {

using Clock = std::chrono::steady_clock;

inline constexpr uint32_t kHellosBeforeUnreachable = 3;
/// A peer no address handle could be made to is asked again after 1, 2, 4,
/// then every 8 intervals: a RoCE GID without a route stays so for a while,
/// and each try costs a hello and a verbs call.
inline constexpr uint32_t kMaxRetryIntervals = 8;
/// Probes of other agents answered a second at most (as many as an agent may
/// send): past it, an agent that said hello cannot make this one send more.
inline constexpr double kMaxAnswersPerSecond = 20000;

struct ProbeConfig {
    std::chrono::milliseconds interval{10000};
    uint32_t count = 10;  ///< probes per peer per interval
    std::chrono::milliseconds timeout{1000};
    uint32_t window = 5;     ///< intervals judged
    uint32_t baseline = 10;  ///< intervals before the window a baseline p99 takes
    PinglistOptions pinglist;
    ProbeThresholds thresholds;
};

/// One peer (or leaf pair) as the interval left it.
struct PeerFigures {
    std::string name;
    std::string leaf;
    bool leaf_peer = true;
    std::string state;  ///< "probing", "resolving", "unreachable"
    std::string unreachable;
    std::string unreachable_reason;  ///< "hello" or "address-handle" when unreachable
    uint64_t retry_interval = 0;     ///< backing off: asked again at the end of this interval
    WindowFigures window;
    std::optional<double> baseline_p99_us;
    uint64_t sent_total = 0;
    uint64_t lost_total = 0;
};

struct ProbeSnapshot {
    std::string host;
    std::string leaf;
    uint64_t interval = 0;  ///< intervals ended
    double interval_s = 0;
    uint32_t window = 0;
    double ended_unix_s = 0;
    std::vector<PeerFigures> peers;  ///< leaf peers, then covered hosts
    std::vector<PeerFigures> pairs;  ///< per covered leaf (name = the leaf)
    std::vector<Finding> findings;
    uint64_t sent_total = 0;
    uint64_t lost_total = 0;
    uint64_t answered_for_others = 0;
    uint64_t unknown_datagrams = 0;  ///< not a probe, or from an agent without a hello
    uint64_t send_queue_full = 0;
    uint64_t answers_refused = 0;  ///< past kMaxAnswersPerSecond in an interval
    perf::UdPortCounts port;       ///< send errors and QP recoveries
};

class ProbeEngine {
  public:
    /// `clock` is the engine's time (tests hand it a ManualClock); it must
    /// outlive the engine.
    ProbeEngine(perf::UdPort& port, std::vector<ProbeHost> hosts, size_t self, ProbeConfig cfg,
                Clock::time_point start, const fabscope::Clock& clock = system_clock());

    const std::vector<ProbeHost>& hosts() const { return hosts_; }
    size_t self() const { return self_; }
    /// The hosts of this round's pinglist with no address yet, unreachable,
    /// or whose probes all went unanswered in the last interval: to say
    /// hello to (a peer backing off after a failed address handle, not yet).
    std::vector<size_t> to_resolve() const;

    /// Host `host` said hello: its probes (carrying `host` as their id) are
    /// answered from now on. Errors: no address handle could be made.
    Status learn_source(size_t host, const perf::UdAddress& addr);
    /// Our hello to `host` was answered: probe it at `addr`, with `id`.
    /// Errors (for the log; the agent goes on): no address handle could be
    /// made, and the peer is unreachable until a retry, backing off.
    Status learn_peer(size_t host, const perf::UdAddress& addr, uint32_t id);
    /// Our hello to `host` failed: not probed until one succeeds, and a
    /// finding once `kHellosBeforeUnreachable` in a row have failed (an
    /// agent starting or restarting is not one).
    void peer_unreachable(size_t host, const std::string& why);

    /// Sends the probes due, takes what arrived (waiting at most `wait`),
    /// answers probes and matches answers, and counts what timed out.
    /// Errors: the port failed.
    Status step(std::chrono::milliseconds wait);
    /// When the current interval ends.
    Clock::time_point interval_end() const { return interval_end_; }
    /// Ends the interval (when `now` is past its end): judges and returns
    /// the snapshot, and plans the next round.
    ProbeSnapshot close_interval(double unix_now);

  private:
    struct Outstanding {
        uint32_t seq = 0;
        Clock::time_point sent;
    };
    struct Peer {
        int handle = 0;  ///< 0: no address yet
        perf::UdAddress addr;
        uint32_t id = 0;
        std::string unreachable;
        bool ah_failed = false;      ///< unreachable: no address handle (else the hello)
        uint32_t failed_hellos = 0;  ///< in a row, an address handle not made counted too
        uint32_t ah_failures = 0;    ///< in a row: the backoff's exponent
        uint64_t retry_round = 0;    ///< not asked again before this round
        PeerHistory history;
        std::deque<Outstanding> outstanding;
        uint32_t next_seq = 1;
        bool silent = false;  ///< all its probes lost in the last interval
    };
    struct Source {
        int handle = 0;
        uint32_t qpn = 0;
    };
    void plan_round();
    /// When probe `i` of this interval's schedule is due.
    Clock::time_point due(size_t i) const;
    void send_due(Clock::time_point now);
    void on_datagram(const perf::UdDatagram& d, Clock::time_point now);
    void expire(Clock::time_point now);
    /// The covered leaf's tally for a probe to `host`; null for a leaf peer.
    ProbeTally* pair_tally(size_t host);

    const fabscope::Clock& clock_;
    perf::UdPort& port_;
    std::vector<ProbeHost> hosts_;
    size_t self_;
    ProbeConfig cfg_;
    Pinglist pinglist_;
    std::map<size_t, Peer> peers_;             // every host the pinglist may probe
    std::map<std::string, PeerHistory> pair_;  // per covered leaf
    std::map<size_t, Source> sources_;         // who may be answered
    uint64_t round_ = 0;
    Clock::time_point interval_start_;
    Clock::time_point interval_end_;
    std::vector<size_t> schedule_;  // this interval's probes, in order
    size_t next_probe_ = 0;
    uint64_t answers_this_interval_ = 0;
    ProbeSnapshot counts_;  // host, leaf and the running totals: each snapshot starts as it
};

}  // namespace fabscope::probe
