#pragma once
// Connections welcomed and not yet heard from: a service reads every
// client's first message (its hello, and the proof of its key) at once in
// its one poll loop, each under a short deadline of its own, so a client
// that answers at once never waits behind one that says nothing. As sshd
// bounds its unauthenticated connections (MaxStartups, LoginGraceTime):
// at most `per_source` from one address and `total` in all; a new
// connection makes room by dropping the oldest of its own address (else the
// oldest of all), so idle connections cannot keep a real client out.

#include <poll.h>

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "net/channel.h"
#include "util/result.h"

namespace fabscope::perf {

struct PendingLimits {
    Millis grace{2000};     ///< from the welcome to the first message
    size_t per_source = 4;  ///< from one address
    size_t total = 64;
};

class PendingHellos {
  public:
    explicit PendingHellos(PendingLimits limits) : limits_(limits) {}

    /// One connection, with what the service keeps beside it (its nonce).
    struct Entry {
        Channel ch;
        std::string token;
        std::chrono::steady_clock::time_point deadline;
    };
    /// What became of a connection: its first message, or why there is none
    /// (it closed, sent what is not a message, or its time ran out).
    struct Heard {
        Entry entry;
        Result<nlohmann::json> message;
    };

    /// Holds `ch` until its first message; returns the connection dropped to
    /// make room for it, if one was.
    std::optional<Entry> add(Channel&& ch, std::string token);
    /// Appends a pollfd for every connection held.
    void poll_fds(std::vector<pollfd>& fds) const;
    /// The connections heard from, closed or past their deadline, oldest
    /// first; the rest stay. Reads without waiting.
    std::vector<Heard> take_ready();
    size_t size() const { return held_.size(); }
    /// How many are held from `ip`.
    size_t from(const std::string& ip) const;

  private:
    PendingLimits limits_;
    std::deque<Entry> held_;  ///< oldest first
};

}  // namespace fabscope::perf
