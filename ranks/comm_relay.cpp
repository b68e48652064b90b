#include "ranks/comm_relay.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <limits>

#include "net/message.h"
#include "util/byte_size.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

/// A send to a peer that stopped reading fails after this, and closes it.
constexpr Millis kSendTimeout{2000};
/// Messages remembered per agent for an early "undeliverable" (a step's few).
constexpr size_t kRelayedKept = 16;

Millis until(MeshDeadline d) {
    auto left = std::chrono::duration_cast<Millis>(d - MeshClock::now());
    return std::max(left, Millis(0));
}

json undeliverable(int peer, int tag) {
    return {{"type", "undeliverable"}, {"peer", peer}, {"tag", tag}};
}

}  // namespace

nlohmann::json relay_json(const char* key, const Relay& r) {
    return {{"type", "relay"}, {key, r.peer}, {"tag", r.tag}, {"body", r.body}};
}

std::optional<Relay> relay_from_json(const nlohmann::json& j, const char* key, int size) {
    if (message_type(j) != "relay") return std::nullopt;
    const int64_t peer = message_int(j, key, -1);
    const int64_t tag = message_int(j, "tag", -1);
    auto body = j.find("body");
    if (peer < 0 || peer >= size || tag < 0 || tag > kMaxRelayTag || body == j.end() ||
        !body->is_string())
        return std::nullopt;
    Relay r;
    r.peer = static_cast<int>(peer);
    r.tag = static_cast<int>(tag);
    r.body = body->get<std::string>();
    return r;
}

std::optional<int> Mailbox::put(int peer, int tag, std::string body) {
    const auto key = std::make_pair(peer, tag);
    if (auto old = got_.find(key); old != got_.end()) {
        bytes_ -= cost(old->second);
        peer_bytes_[peer] -= cost(old->second);
        got_.erase(old);
    }
    size_t& mine = peer_bytes_[peer];
    if (mine + cost(body) > lim_.peer_bytes) {
        drop(peer);
        return peer;
    }
    mine += cost(body);
    bytes_ += cost(body);
    got_[key] = std::move(body);
    if (bytes_ <= lim_.total_bytes) return std::nullopt;
    const auto most =
        std::max_element(peer_bytes_.begin(), peer_bytes_.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    const int blamed = most->first;
    drop(blamed);
    return blamed;
}

void Mailbox::drop(int peer) {
    auto first = got_.lower_bound({peer, std::numeric_limits<int>::min()});
    auto last = got_.lower_bound({peer + 1, std::numeric_limits<int>::min()});
    for (auto it = first; it != last; ++it) bytes_ -= cost(it->second);
    got_.erase(first, last);
    peer_bytes_.erase(peer);
}

void Mailbox::fail(int peer, int tag) {
    if (!failed_.insert({peer, tag}).second) return;
    failed_order_.emplace_back(peer, tag);
    while (failed_order_.size() > lim_.failed) {
        failed_.erase(failed_order_.front());
        failed_order_.pop_front();
    }
}

std::optional<std::string> Mailbox::take(int peer, int tag) {
    auto it = got_.find({peer, tag});
    if (it == got_.end()) return std::nullopt;
    std::string body = std::move(it->second);
    got_.erase(it);
    bytes_ -= cost(body);
    if (size_t& mine = peer_bytes_[peer]; (mine -= cost(body)) == 0) peer_bytes_.erase(peer);
    return body;
}

std::string mailbox_breach(const Mailbox& box, int peer) {
    const MailboxLimits& l = box.limits();
    return fmt::format(
        "rank {} sent more than {} that no step asked for (at most {} from one rank, {} in all)",
        peer, format_size(l.peer_bytes), format_size(l.peer_bytes),
        l.total_bytes == SIZE_MAX ? std::string("no bound") : format_size(l.total_bytes));
}

// ---- the agent's side ----

void AgentComm::send(int to, int tag, const std::string& body) {
    if (!lost_.empty()) return;
    if (auto s = ch_.send(relay_json("to", {to, tag, body}), kSendTimeout); !s)
        lost_ = fmt::format("the coordinator stopped reading: {}", s.error().message);
}

std::optional<std::string> AgentComm::receive(int peer, int tag, MeshDeadline deadline) {
    deadline = std::min(deadline, end_);
    for (;;) {
        if (auto m = box_.take(peer, tag)) return m;
        if (box_.failed(peer, tag) || !lost_.empty()) return std::nullopt;
        if (stop_ && stop_->stop_requested()) {
            lost_ = "interrupted";
            return std::nullopt;
        }
        const Millis left = until(deadline);
        if (left.count() == 0) return std::nullopt;
        Channel::Peek p = ch_.wait(std::min(left, Millis(200)));
        if (p == Channel::Peek::Closed) {
            lost_ = "the coordinator closed the session";
            continue;
        }
        if (p != Channel::Peek::Message) continue;
        auto m = ch_.receive(Millis(1));
        if (!m) {
            lost_ = fmt::format("the coordinator's session failed: {}", m.error().message);
            continue;
        }
        const std::string type = message_type(*m);
        if (auto r = relay_from_json(*m, "from", size_)) {
            if (auto blamed = box_.put(r->peer, r->tag, std::move(r->body))) {
                // The coordinator is told why, so its finding names the rank.
                lost_ = mailbox_breach(box_, *blamed);
                (void)ch_.send({{"type", "error"}, {"message", lost_}}, kSendTimeout);
            }
        } else if (type == "undeliverable") {
            box_.fail(static_cast<int>(message_int(*m, "peer", -1)),
                      static_cast<int>(message_int(*m, "tag", -1)));
        } else if (type == "end") {
            lost_ = "the coordinator ended the run";
        } else {
            lost_ = "the coordinator sent a message that is not part of a mesh run";
        }
    }
}

std::optional<std::string> AgentComm::exchange(int peer, int tag, const std::string& mine,
                                               MeshDeadline deadline) {
    send(peer, tag, mine);
    return receive(peer, tag, deadline);
}

MeshComm::Messages AgentComm::gather(int tag, const std::string& mine, const std::vector<char>&,
                                     MeshDeadline, const std::function<bool(const Messages&)>&) {
    send(0, tag, mine);
    return {};
}

std::optional<std::string> AgentComm::broadcast(int tag, const std::string&,
                                                const std::vector<char>&, MeshDeadline deadline) {
    return receive(0, tag, deadline);
}

// ---- the coordinator's side ----

void CoordinatorComm::close(int r, const std::string& why) {
    if (!agents_[r].open) return;
    agents_[r].open = false;
    agents_[r].ch = Channel();  // closes the socket: the agent's waits end
    why_[r] = why;
    auto waiting = std::move(relayed_to_[r]);
    relayed_to_[r].clear();
    for (const auto& [from, tag] : waiting) send(from, undeliverable(r, tag));
}

bool CoordinatorComm::send(int r, const json& m) {
    if (!agents_[r].open) return false;
    if (auto s = agents_[r].ch.send(m, kSendTimeout); !s) {
        close(r, fmt::format("stopped reading its session: {}", s.error().message));
        return false;
    }
    return true;
}

void CoordinatorComm::handle(int from, const json& m) {
    if (auto r = relay_from_json(m, "to", size())) {
        if (r->peer == 0) {
            if (auto blamed = box_.put(from, r->tag, std::move(r->body)))
                close(*blamed, mailbox_breach(box_, *blamed));
        } else if (send(r->peer, relay_json("from", {from, r->tag, r->body}))) {
            auto& sent = relayed_to_[r->peer];
            sent.emplace_back(from, r->tag);
            if (sent.size() > kRelayedKept) sent.pop_front();
        } else {
            send(from, undeliverable(r->peer, r->tag));
        }
        return;
    }
    if (message_type(m) == "error") {
        close(from,
              fmt::format("ended its session: {}", message_text(m, "message", "no reason given")));
        return;
    }
    close(from, "sent a message that is not part of a mesh run");
}

void CoordinatorComm::pump(Millis wait) {
    std::vector<pollfd> fds;
    std::vector<int> who;
    bool buffered = false;
    for (size_t r = 1; r < agents_.size(); ++r) {
        if (!agents_[r].open) continue;
        // Read with an earlier message (the "joined"), a message may sit in
        // the channel's buffer already, where poll cannot see it.
        const bool ready = agents_[r].ch.buffered();
        buffered = buffered || ready;
        fds.push_back({agents_[r].ch.fd(), POLLIN, static_cast<short>(ready ? POLLIN : 0)});
        who.push_back(static_cast<int>(r));
    }
    if (!buffered) {
        if (::poll(fds.data(), fds.size(), static_cast<int>(wait.count())) <= 0) return;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        const int r = who[i];
        for (int n = 0; n < 256 && agents_[r].open; ++n) {
            Channel::Peek p = agents_[r].ch.peek();
            if (p == Channel::Peek::Closed)
                close(r, "closed its session (the agent died or was stopped)");
            if (p != Channel::Peek::Message) break;
            auto m = agents_[r].ch.receive(Millis(1));
            if (!m) {
                close(r, fmt::format("broke the protocol: {}", m.error().message));
                break;
            }
            handle(r, *m);
        }
    }
}

std::optional<std::string> CoordinatorComm::exchange(int peer, int tag, const std::string& mine,
                                                     MeshDeadline deadline) {
    if (peer <= 0 || peer >= size() || !send(peer, relay_json("from", {0, tag, mine})))
        return std::nullopt;
    for (;;) {
        if (auto m = box_.take(peer, tag)) return m;
        if (!agents_[peer].open || MeshClock::now() >= deadline) return std::nullopt;
        pump(std::min(until(deadline), Millis(100)));
    }
}

MeshComm::Messages CoordinatorComm::gather(int tag, const std::string& mine,
                                           const std::vector<char>& skip, MeshDeadline deadline,
                                           const std::function<bool(const Messages&)>& give_up) {
    const int n = size();
    Messages got(static_cast<size_t>(n));
    got[0] = mine;
    for (int r = 1; r < n; ++r) {
        if (tag == hello_tag_ && agents_[r].hello) got[r] = agents_[r].hello;
    }
    auto next_ask = MeshClock::now();
    for (;;) {
        size_t missing = 0;
        for (int r = 1; r < n; ++r) {
            if (got[r] || skip[r]) continue;
            if (auto m = box_.take(r, tag)) {
                got[r] = std::move(m);
            } else if (agents_[r].open) {
                ++missing;  // a closed session sends nothing more
            }
        }
        if (missing == 0 || MeshClock::now() >= deadline) break;
        if (MeshClock::now() >= next_ask) {
            if (give_up && give_up(got)) break;
            next_ask = MeshClock::now() + Millis(100);
        }
        pump(std::min(until(deadline), Millis(100)));
    }
    return got;
}

std::optional<std::string> CoordinatorComm::broadcast(int tag, const std::string& msg,
                                                      const std::vector<char>& skip, MeshDeadline) {
    for (int r = 1; r < size(); ++r) {
        if (!skip[r]) send(r, relay_json("from", {0, tag, msg}));
    }
    return msg;
}

void CoordinatorComm::end() {
    for (int r = 1; r < size(); ++r) {
        send(r, {{"type", "end"}});
        close(r, "the run ended");
    }
}

}  // namespace fabscope::perf
