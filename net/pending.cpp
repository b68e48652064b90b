#include "net/pending.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/duration.h"

namespace fabscope::perf {

size_t PendingHellos::from(const std::string& ip) const {
    return static_cast<size_t>(std::count_if(held_.begin(), held_.end(),
                                             [&](const Entry& e) { return e.ch.peer_ip() == ip; }));
}

std::optional<PendingHellos::Entry> PendingHellos::add(Channel&& ch, std::string token) {
    std::optional<Entry> dropped;
    const std::string ip = ch.peer_ip();
    auto drop = [&](std::deque<Entry>::iterator it) {
        dropped = std::move(*it);
        held_.erase(it);
    };
    if (limits_.per_source > 0 && from(ip) >= limits_.per_source) {
        drop(std::find_if(held_.begin(), held_.end(),
                          [&](const Entry& e) { return e.ch.peer_ip() == ip; }));
    } else if (limits_.total > 0 && held_.size() >= limits_.total) {
        drop(held_.begin());
    }
    held_.push_back(
        {std::move(ch), std::move(token), std::chrono::steady_clock::now() + limits_.grace});
    return dropped;
}

void PendingHellos::poll_fds(std::vector<pollfd>& fds) const {
    for (const Entry& e : held_) fds.push_back({e.ch.fd(), POLLIN, 0});
}

std::vector<PendingHellos::Heard> PendingHellos::take_ready() {
    std::vector<Heard> out;
    const auto now = std::chrono::steady_clock::now();
    for (auto it = held_.begin(); it != held_.end();) {
        const Channel::Peek p = it->ch.peek();
        if (p == Channel::Peek::Nothing && now < it->deadline) {
            ++it;
            continue;
        }
        Heard h{std::move(*it), make_error("")};
        it = held_.erase(it);
        if (p == Channel::Peek::Message) {
            h.message = h.entry.ch.receive(Millis(1));
        } else if (p == Channel::Peek::Closed) {
            h.message = make_error("it closed the connection before its hello");
        } else {
            h.message = make_error(
                fmt::format("no hello within {} of the welcome", format_duration(limits_.grace)));
        }
        out.push_back(std::move(h));
    }
    return out;
}

}  // namespace fabscope::perf
