#include "probe/engine.h"

#include <fmt/format.h>

#include <algorithm>

#include "probe/packet.h"

namespace fabscope::probe {
namespace {

uint64_t to_ns(Clock::time_point t) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

}  // namespace

ProbeEngine::ProbeEngine(perf::UdPort& port, std::vector<ProbeHost> hosts, size_t self,
                         ProbeConfig cfg, Clock::time_point start, const fabscope::Clock& clock)
    : clock_(clock), port_(port), hosts_(std::move(hosts)), self_(self), cfg_(cfg) {
    pinglist_ = make_pinglist(hosts_, self_, cfg_.pinglist);
    auto add = [&](size_t h) {
        peers_.try_emplace(h, Peer{.history = {cfg_.window, cfg_.baseline}});
    };
    for (size_t h : pinglist_.leaf_peers) add(h);
    for (size_t i = 0; i < pinglist_.covered.size(); ++i) {
        for (size_t h : pinglist_.covered[i]) add(h);
        pair_.try_emplace(pinglist_.covered_leaves[i], cfg_.window, cfg_.baseline);
    }
    counts_.host = hosts_[self_].name;
    counts_.leaf = hosts_[self_].leaf;
    interval_start_ = start;
    interval_end_ = start + cfg_.interval;
    plan_round();
}

std::vector<size_t> ProbeEngine::to_resolve() const {
    std::vector<size_t> out;
    for (size_t h : round_peers(pinglist_, round_, cfg_.pinglist.cross_hosts)) {
        const Peer& p = peers_.at(h);
        if (round_ < p.retry_round) continue;  // backing off
        // An unreachable peer with an old handle is asked again too: its
        // probes stopped, so it never turns silent.
        if (p.handle == 0 || p.silent || !p.unreachable.empty()) out.push_back(h);
    }
    return out;
}

Status ProbeEngine::learn_source(size_t host, const perf::UdAddress& addr) {
    auto it = sources_.find(host);
    if (it != sources_.end()) {
        if (it->second.qpn == addr.qpn) return Ok{};
        port_.remove_destination(it->second.handle);  // it restarted: a new QP
        sources_.erase(it);
    }
    auto h = port_.add_destination(addr);
    if (!h) return h.error();
    sources_[host] = Source{*h, addr.qpn};
    return Ok{};
}

Status ProbeEngine::learn_peer(size_t host, const perf::UdAddress& addr, uint32_t id) {
    auto it = peers_.find(host);
    if (it == peers_.end()) return Ok{};
    Peer& p = it->second;
    p.silent = false;
    p.id = id;
    if (p.handle == 0 || p.addr.qpn != addr.qpn || p.addr.gid != addr.gid) {
        if (p.handle != 0) port_.remove_destination(p.handle);
        p.handle = 0;
        p.outstanding.clear();  // answers to the old QP's probes will not come
        auto h = port_.add_destination(addr);
        if (!h) {
            // This peer alone: it is unreachable and asked again later, backing off.
            p.unreachable = "no address handle: " + h.error().message;
            p.ah_failed = true;
            ++p.failed_hellos;
            const uint32_t shift = std::min<uint32_t>(p.ah_failures++, 3);
            p.retry_round = round_ + std::min<uint64_t>(uint64_t{1} << shift, kMaxRetryIntervals);
            return make_error(fmt::format("{}: {} (asked again in {} intervals)", hosts_[host].name,
                                          p.unreachable, p.retry_round - round_));
        }
        p.handle = *h;
        p.addr = addr;
    }
    p.unreachable.clear();
    p.failed_hellos = 0;
    p.ah_failed = false;
    p.ah_failures = 0;
    p.retry_round = 0;
    return Ok{};
}

void ProbeEngine::peer_unreachable(size_t host, const std::string& why) {
    auto it = peers_.find(host);
    if (it == peers_.end()) return;
    it->second.unreachable = why;
    it->second.ah_failed = false;
    ++it->second.failed_hellos;
}

void ProbeEngine::plan_round() {
    schedule_.clear();
    next_probe_ = 0;
    const std::vector<size_t> peers = round_peers(pinglist_, round_, cfg_.pinglist.cross_hosts);
    // Round-robin over the peers, so each peer's probes spread over the interval.
    for (uint32_t k = 0; k < cfg_.count; ++k)
        schedule_.insert(schedule_.end(), peers.begin(), peers.end());
}

Clock::time_point ProbeEngine::due(size_t i) const {
    return interval_start_ + (interval_end_ - interval_start_) * static_cast<int64_t>(i) /
                                 static_cast<int64_t>(schedule_.size());
}

void ProbeEngine::send_due(Clock::time_point now) {
    while (next_probe_ < schedule_.size()) {
        if (due(next_probe_) > now) break;
        const size_t host = schedule_[next_probe_++];
        Peer& p = peers_.at(host);
        if (p.handle == 0 || !p.unreachable.empty()) continue;  // not reachable: not probed
        ProbePacket pk{PacketKind::Probe, p.id, static_cast<uint32_t>(host), p.next_seq++,
                       to_ns(now)};
        const auto bytes = encode(pk);
        if (!port_.send(p.handle, bytes.data(), bytes.size())) {
            ++counts_.send_queue_full;
            continue;
        }
        ++p.history.current().sent;
        if (ProbeTally* t = pair_tally(host)) ++t->sent;
        ++counts_.sent_total;
        p.outstanding.push_back({pk.seq, now});
    }
}

ProbeTally* ProbeEngine::pair_tally(size_t host) {
    if (hosts_[host].leaf == hosts_[self_].leaf) return nullptr;  // a leaf peer: no pair
    auto it = pair_.find(hosts_[host].leaf);
    return it == pair_.end() ? nullptr : &it->second.current();
}

void ProbeEngine::on_datagram(const perf::UdDatagram& d, Clock::time_point now) {
    auto pk = decode(d.bytes.data(), d.size);
    if (!pk) {
        ++counts_.unknown_datagrams;
        return;
    }
    if (pk->kind == PacketKind::Probe) {
        auto src = sources_.find(pk->id);
        if (src == sources_.end() || src->second.qpn != d.src_qpn) {
            ++counts_.unknown_datagrams;
            return;
        }
        const double cap =
            kMaxAnswersPerSecond * std::chrono::duration<double>(cfg_.interval).count();
        if (static_cast<double>(answers_this_interval_) >= cap) {
            ++counts_.answers_refused;
            return;
        }
        ++answers_this_interval_;
        pk->kind = PacketKind::Answer;
        const auto bytes = encode(*pk);
        if (port_.send(src->second.handle, bytes.data(), bytes.size()))
            ++counts_.answered_for_others;
        else
            ++counts_.send_queue_full;
        return;
    }
    auto it = peers_.find(pk->token);
    if (it == peers_.end() || it->second.addr.qpn != d.src_qpn) {
        ++counts_.unknown_datagrams;
        return;
    }
    Peer& p = it->second;
    auto o = std::find_if(p.outstanding.begin(), p.outstanding.end(),
                          [&](const Outstanding& x) { return x.seq == pk->seq; });
    if (o == p.outstanding.end()) return;  // already counted lost, or a duplicate
    const double us = std::chrono::duration<double, std::micro>(now - o->sent).count();
    p.outstanding.erase(o);
    for (ProbeTally* t : {&p.history.current(), pair_tally(pk->token)}) {
        if (!t) continue;
        ++t->answered;
        t->rtt_us.push_back(us);
    }
}

void ProbeEngine::expire(Clock::time_point now) {
    for (auto& [host, p] : peers_) {
        while (!p.outstanding.empty() && p.outstanding.front().sent + cfg_.timeout <= now) {
            p.outstanding.pop_front();
            ++p.history.current().lost;
            if (ProbeTally* t = pair_tally(host)) ++t->lost;
            ++counts_.lost_total;
        }
    }
}

Status ProbeEngine::step(std::chrono::milliseconds wait) {
    Clock::time_point now = clock_.now();
    send_due(now);
    // Sleep no longer than until the next probe is due or the interval ends.
    Clock::time_point until = interval_end_;
    if (next_probe_ < schedule_.size()) until = std::min(until, due(next_probe_));
    auto left = std::chrono::ceil<std::chrono::milliseconds>(until - now);
    left = std::clamp(left, std::chrono::milliseconds(0), wait);
    auto got = port_.receive(left);
    if (!got) return got.error();
    now = clock_.now();
    for (const perf::UdDatagram& d : *got) on_datagram(d, now);
    expire(now);
    return Ok{};
}

ProbeSnapshot ProbeEngine::close_interval(double unix_now) {
    ProbeSnapshot s = counts_;  // host, leaf and the totals; peers, pairs, findings below
    s.interval = ++round_;
    s.interval_s = std::chrono::duration<double>(cfg_.interval).count();
    s.window = cfg_.window;
    s.ended_unix_s = unix_now;
    answers_this_interval_ = 0;
    s.port = port_.counts();
    std::vector<PeerView> views;
    for (auto& [host, p] : peers_) {
        const ProbeTally& last = p.history.current();
        p.silent = p.handle != 0 && last.sent > 0 && last.answered == 0 && last.lost > 0;
        p.history.close_interval();
        const bool leaf_peer = hosts_[host].leaf == hosts_[self_].leaf;
        PeerFigures f{hosts_[host].name,
                      hosts_[host].leaf,
                      leaf_peer,
                      !p.unreachable.empty() ? "unreachable"
                      : p.handle == 0        ? "resolving"
                                             : "probing",
                      p.unreachable,
                      p.unreachable.empty() ? ""
                      : p.ah_failed         ? "address-handle"
                                            : "hello",
                      p.retry_round > round_ ? p.retry_round : 0,
                      p.history.window(),
                      p.history.baseline_p99(),
                      p.history.total_sent(),
                      p.history.total_lost()};
        views.push_back({f.name, f.leaf, leaf_peer, f.window, f.baseline_p99_us,
                         p.failed_hellos >= kHellosBeforeUnreachable ? f.unreachable : ""});
        s.peers.push_back(std::move(f));
    }
    std::stable_partition(s.peers.begin(), s.peers.end(),
                          [](const PeerFigures& f) { return f.leaf_peer; });
    std::vector<LeafPairView> pairs;
    for (auto& [leaf, h] : pair_) {
        h.close_interval();
        PeerFigures f{leaf,
                      leaf,
                      false,
                      "probing",
                      "",
                      "",
                      0,
                      h.window(),
                      h.baseline_p99(),
                      h.total_sent(),
                      h.total_lost()};
        pairs.push_back({leaf, f.window, f.baseline_p99_us});
        s.pairs.push_back(std::move(f));
    }
    s.findings = judge_probes({s.host, s.leaf, cfg_.window}, views, pairs, cfg_.thresholds);
    interval_start_ = interval_end_;
    interval_end_ = interval_start_ + cfg_.interval;
    plan_round();
    return s;
}

}  // namespace fabscope::probe
