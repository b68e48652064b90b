#pragma once
// The MeshComm of a run launched by agents (mesh/order.h): no launcher,
// one TCP session from the coordinator (rank 0) to each agent, and every
// message between two agents relayed by the coordinator. The rank logic of
// mesh/run runs unchanged on both sides; only the transport differs.
//
// The coordinator reads every session whenever rank 0 waits (a gather, a
// broadcast): that is where the agents exchange their endpoint info, since
// rank 0 always gathers the step they are in. A message to an agent whose
// session closed comes back as "undeliverable", so its partner stops waiting
// at once, and a gather stops waiting for agents whose session closed.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "net/channel.h"
#include "ranks/comm.h"

namespace fabscope::perf {

/// Tags above this are not mesh_run's (its steps count up from 16).
inline constexpr int64_t kMaxRelayTag = int64_t{1} << 30;

/// A rank's message on its way through the coordinator.
struct Relay {
    int peer = 0;  ///< to (agent -> coordinator) or from (coordinator -> agent)
    int tag = 0;
    std::string body;
};

/// {"type": "relay", "to"|"from": peer, "tag", "body"}.
nlohmann::json relay_json(const char* key, const Relay& r);
/// A relay with `key` ("to" or "from") naming a rank below `size`, a tag of
/// at least 0 and a string body; nullopt for anything else.
std::optional<Relay> relay_from_json(const nlohmann::json& j, const char* key, int size);

/// What a mailbox holds at most. A message costs its body plus kEntryCost,
/// so many empty messages are bounded too.
struct MailboxLimits {
    size_t peer_bytes = 8 * kMaxMessage;  ///< unclaimed from one peer
    size_t total_bytes = SIZE_MAX;        ///< unclaimed from all peers together
    size_t failed = 65536;                ///< (peer, tag) pairs known undeliverable
    static constexpr size_t kEntryCost = 64;
};

/// Messages that arrived before anyone asked for them, by (peer, tag). A
/// step waits for a few messages per peer, never megabytes: a peer past its
/// bound (or, past the total, the peer holding most) is blamed: what it held
/// is dropped and put() names it, for the caller to end that peer's part.
/// The undeliverable pairs are bounded by count, the oldest forgotten first.
class Mailbox {
  public:
    explicit Mailbox(MailboxLimits limits = {}) : lim_(limits) {}
    /// Keeps `body` for take(peer, tag); the peer to blame when a bound is passed.
    std::optional<int> put(int peer, int tag, std::string body);
    /// `peer` will send nothing for `tag` (undeliverable).
    void fail(int peer, int tag);
    bool failed(int peer, int tag) const { return failed_.count({peer, tag}) > 0; }
    std::optional<std::string> take(int peer, int tag);
    size_t size() const { return got_.size(); }
    size_t bytes() const { return bytes_; }
    const MailboxLimits& limits() const { return lim_; }

  private:
    void drop(int peer);
    static size_t cost(const std::string& body) { return body.size() + MailboxLimits::kEntryCost; }

    MailboxLimits lim_;
    std::map<std::pair<int, int>, std::string> got_;
    std::map<int, size_t> peer_bytes_;
    size_t bytes_ = 0;
    std::set<std::pair<int, int>> failed_;
    std::deque<std::pair<int, int>> failed_order_;
};

/// Why a mailbox blamed `peer`, for the finding that names it.
std::string mailbox_breach(const Mailbox& box, int peer);

/// An agent's side: one session to the coordinator.
class AgentComm final : public MeshComm {
  public:
    /// `session_end`: no wait goes past it (the order's own bound).
    /// `session_end`: no wait goes past it (the order's own bound); `stop`
    /// (the server's Ctrl-C) ends every wait.
    AgentComm(Channel& ch, int rank, int size, MeshDeadline session_end, const StopToken* stop)
        : ch_(ch), rank_(rank), size_(size), end_(session_end), stop_(stop) {}

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int local_rank() const override { return 0; }
    std::optional<std::string> exchange(int peer, int tag, const std::string& mine,
                                        MeshDeadline deadline) override;
    Messages gather(int tag, const std::string& mine, const std::vector<char>& skip,
                    MeshDeadline deadline,
                    const std::function<bool(const Messages& so_far)>& give_up) override;
    std::optional<std::string> broadcast(int tag, const std::string& msg,
                                         const std::vector<char>& skip,
                                         MeshDeadline deadline) override;
    /// Why the session with the coordinator ended ("" while it lasts).
    const std::string& lost() const { return lost_; }

  private:
    void send(int to, int tag, const std::string& body);
    std::optional<std::string> receive(int peer, int tag, MeshDeadline deadline);

    Channel& ch_;
    int rank_;
    int size_;
    MeshDeadline end_;
    const StopToken* stop_;
    /// Relayed messages from every peer: bounded in total too.
    Mailbox box_{MailboxLimits{.total_bytes = 64 * kMaxMessage}};
    std::string lost_;
};

/// The coordinator's side: rank 0, one session per agent (index = rank; 0
/// unused). A session that failed before the run is given as closed, with
/// `hello` (rank 0's view of that rank: why it takes no part) answering for it.
class CoordinatorComm final : public MeshComm {
  public:
    struct Agent {
        Channel ch;
        bool open = false;
        std::optional<std::string> hello;  ///< for an agent that never joined
    };
    CoordinatorComm(std::vector<Agent> agents, int hello_tag)
        : agents_(std::move(agents)), hello_tag_(hello_tag) {}

    int rank() const override { return 0; }
    int size() const override { return static_cast<int>(agents_.size()); }
    int local_rank() const override { return 0; }
    std::optional<std::string> exchange(int peer, int tag, const std::string& mine,
                                        MeshDeadline deadline) override;
    Messages gather(int tag, const std::string& mine, const std::vector<char>& skip,
                    MeshDeadline deadline,
                    const std::function<bool(const Messages& so_far)>& give_up) override;
    std::optional<std::string> broadcast(int tag, const std::string& msg,
                                         const std::vector<char>& skip,
                                         MeshDeadline deadline) override;
    /// Tells every agent the run is over and closes the sessions.
    void end();
    /// Why agent r's session closed ("" while open).
    const std::string& closed_why(int r) const { return why_[r]; }

  private:
    /// Reads what has come, relays what is for others, waits at most `wait`.
    void pump(Millis wait);
    void handle(int from, const nlohmann::json& m);
    void close(int r, const std::string& why);
    bool send(int r, const nlohmann::json& m);

    std::vector<Agent> agents_;
    std::vector<std::string> why_ = std::vector<std::string>(agents_.size());
    /// Per agent, the last messages relayed to it, (from, tag): when its
    /// session closes their senders are told at once, since the answer they
    /// wait for (an exchange answers with the same tag) will not come.
    std::vector<std::deque<std::pair<int, int>>> relayed_to_ =
        std::vector<std::deque<std::pair<int, int>>>(agents_.size());
    int hello_tag_;
    Mailbox box_;
};

}  // namespace fabscope::perf
