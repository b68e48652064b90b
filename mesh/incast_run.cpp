#include "mesh/incast_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "congestion/counter_source.h"
#include "congestion/dcb_settings.h"
#include "congestion/ethtool_stats.h"
#include "congestion/ip_ecn.h"
#include "congestion/roce_change_json.h"
#include "mesh/wire.h"
#include "model/duration.h"
#include "ranks/protocol.h"
#include "util/host_name.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

constexpr int kTagHello = 101;
constexpr int kTagPlan = 102;
enum class Phase : int { Connect = 0, Idle = 1, Loaded = 2 };
enum class Msg : int { Info = 0, Ready = 1, Report = 2, Go = 3 };
int tag(Phase p, Msg m) {
    return 200 + static_cast<int>(p) * 4 + static_cast<int>(m);
}
const char* phase_name(Phase p) {
    return p == Phase::Connect ? "connect" : p == Phase::Idle ? "idle" : "loaded";
}

/// What ends a probe that ran its time: not an error.
constexpr const char* kWindowOver = "the probe window is over";

/// The READ probe for `window`: its samples so far when the window closes.
json probe(TestEndpoint& ep, const TestSpec& p, Millis window, const StopToken& stop) {
    const auto start = MeshClock::now();
    const auto end = start + window;
    TestSpec s = p;
    // Enough for a microsecond a probe; the window ends it long before on any link.
    s.iterations =
        std::clamp<uint64_t>(static_cast<uint64_t>(window.count()) * 1000, 1000, 5000000);
    auto keep_going = [&]() -> std::string {
        if (stop.stop_requested()) return "interrupted";
        return MeshClock::now() > end ? kWindowOver : "";
    };
    LatencyOutcome r = ep.run_latency(s, keep_going);
    const double seconds = std::chrono::duration<double>(MeshClock::now() - start).count();
    const bool ok = (r.error.empty() || r.error == kWindowOver) && !r.samples_us.empty();
    LatencyStats st = latency_stats(r.samples_us);
    return {{"ok", ok},
            {"error", ok ? "" : (r.error.empty() ? "no samples" : r.error)},
            {"seconds", seconds},
            {"samples", st.samples},
            {"min_us", st.min_us},
            {"median_us", st.median_us},
            {"p99_us", st.p99_us},
            {"p999_us", st.p999_us},
            {"max_us", st.max_us},
            {"mean_us", st.mean_us}};
}

IncastProbe probe_from_json(const json& j) {
    IncastProbe p;
    p.measured = j.value("ok", false);
    p.error = j.value("error", "");
    p.seconds = j.value("seconds", 0.0);
    p.stats.samples = j.value("samples", uint64_t{0});
    p.stats.min_us = j.value("min_us", 0.0);
    p.stats.median_us = j.value("median_us", 0.0);
    p.stats.p99_us = j.value("p99_us", 0.0);
    p.stats.p999_us = j.value("p999_us", 0.0);
    p.stats.max_us = j.value("max_us", 0.0);
    p.stats.mean_us = j.value("mean_us", 0.0);
    return p;
}

/// One end of the QPs to the receiver: on the receiver one per peer, on a
/// peer the one toward the receiver.
struct Links {
    std::map<int, std::unique_ptr<TestEndpoint>> eps;
    std::map<int, std::string> errors;  ///< by peer rank
};

Links connect_all(MeshComm& comm, const VerbsDevice& dev, const IncastOptions& o,
                  const std::vector<MeshRank>& ranks, int me, int receiver,
                  const std::vector<int>& peers, MeshDeadline deadline) {
    Links l;
    auto config = [&](int peer) {
        return endpoint_config(peer == o.prober ? o.probe : o.spec, o.peer);
    };
    // The receiver pairs with one peer after another; a peer with the receiver.
    const std::vector<int> others = me == receiver ? peers : std::vector<int>{receiver};
    std::map<int, std::unique_ptr<TestEndpoint>> made;
    for (int p : others) {
        auto ep = dev.create_endpoint(config(me == receiver ? p : me));
        json mine =
            ep ? json{{"info", info_to_json((*ep)->info())}} : json{{"error", ep.error().message}};
        auto theirs =
            parse_message(comm.exchange(p, tag(Phase::Connect, Msg::Info), mine.dump(), deadline));
        if (!theirs) {
            l.errors[p] = fmt::format("{} did not answer", who(ranks, p));
            continue;
        }
        if (!ep) {
            l.errors[p] = "creating the QP failed: " + ep.error().message;
        } else if (!theirs->contains("info")) {
            l.errors[p] = fmt::format("{} could not create its QP: {}", who(ranks, p),
                                      theirs->value("error", "no reason given"));
        } else {
            try {
                if (auto c = (*ep)->connect(info_from_json((*theirs)["info"])); !c)
                    l.errors[p] = "connecting the QP failed: " + c.error().message;
            } catch (const std::exception& e) {
                l.errors[p] = fmt::format("{} sent bad endpoint info: {}", who(ranks, p), e.what());
            }
        }
        if (!l.errors.count(p)) made[p] = std::move(*ep);
    }
    // Both sides connected before anyone sends (a WRITE to a QP not yet ready
    // is dropped and retried until the QP gives up).
    for (int p : others) {
        if (l.errors.count(p) && l.errors[p].find("did not answer") != std::string::npos) continue;
        json ready = {{"ok", !l.errors.count(p)}};
        auto their = parse_message(
            comm.exchange(p, tag(Phase::Connect, Msg::Ready), ready.dump(), deadline));
        if (!their) {
            l.errors.emplace(p, fmt::format("{} did not answer", who(ranks, p)));
        } else if (!l.errors.count(p) && !their->value("ok", false)) {
            l.errors[p] = fmt::format("{} could not connect its QP", who(ranks, p));
        }
        if (!l.errors.count(p)) l.eps[p] = std::move(made[p]);
    }
    return l;
}

struct Plan {
    std::vector<MeshRank> ranks;
    int receiver = 0;
    int prober = 1;
    std::vector<int> senders;
};

json plan_json(const Plan& p) {
    json ranks = json::array();
    for (const MeshRank& r : p.ranks) ranks.push_back(rank_json(r));
    return {
        {"ranks", ranks}, {"receiver", p.receiver}, {"prober", p.prober}, {"senders", p.senders}};
}

}  // namespace

IncastReading read_local_congestion(const VerbsDevice& dev, const std::string& sysfs_root) {
    // Only the port under test: a host's other devices carry other traffic.
    class PortSource final : public CounterSource {
      public:
        PortSource(const std::string& root, std::string device, int port)
            : all_(root, system_clock()), device_(std::move(device)), port_(port) {}
        std::vector<CounterSample> read() override {
            std::vector<CounterSample> out;
            for (CounterSample& s : all_.read()) {
                if (s.device == device_ && s.port == port_) out.push_back(std::move(s));
            }
            return out;
        }

      private:
        SysfsCounterSource all_;
        std::string device_;
        int port_;
    };
    PortSource rdma(sysfs_root, dev.name(), dev.port());
    IoctlEthtoolSource ethtool(system_clock());
    NetlinkDcbSource dcb;
    IncastReading r;
    r.roce = read_roce_host(host_name(), rdma, sysfs_root, ethtool, dcb);
    if (auto ip = read_ip_ecn()) r.ip_ecn = std::move(*ip);
    return r;
}

IncastOutcome run_incast(MeshComm& comm, const OpenDevice& open, const IncastOptions& o,
                         const StopToken& stop) {
    IncastOutcome out;
    IncastData& d = out.data;
    const auto t0 = MeshClock::now();
    const int me = comm.rank();
    const int n = comm.size();
    const bool root = me == 0;
    auto elapsed = [&] { return std::chrono::duration<double>(MeshClock::now() - t0).count(); };

    MeshRank self;
    self.rank = me;
    self.host = host_name();
    self.device = o.device;
    self.port = o.port;
    std::unique_ptr<VerbsDevice> dev = open_rank_device(open, self);

    // Hello, and rank 0's plan: who receives, who probes, who sends.
    const Millis start_wait = o.step_timeout * 3;
    std::vector<char> skip(static_cast<size_t>(n), 0);
    auto hellos = comm.gather(kTagHello, rank_json(self).dump(), skip, t0 + start_wait, nullptr);
    std::string plan_msg;
    if (root) {
        d.spec = o.spec;
        d.probe = o.probe;
        d.receiver = o.receiver;
        d.prober = o.prober;
        d.ranks = ranks_from_hellos(hellos, start_wait, skip, d.findings);
        Plan p{d.ranks, o.receiver, o.prober, {}};
        for (const MeshRank& r : d.ranks) {
            if (r.rank != o.receiver && r.rank != o.prober && r.error.empty() && !r.gone)
                p.senders.push_back(r.rank);
        }
        d.senders = p.senders;
        for (int s : p.senders) d.flows.push_back({.src = s});
        json plan = plan_json(p);
        auto usable = [&](int r) {
            return r >= 0 && r < n && d.ranks[r].error.empty() && !d.ranks[r].gone;
        };
        if (o.receiver == o.prober || o.receiver < 0 || o.prober < 0 || o.receiver >= n ||
            o.prober >= n) {
            plan["abort"] = fmt::format(
                "the receiver (rank {}) and the prober (rank {}) must be two of the {} ranks",
                o.receiver, o.prober, n);
        } else if (!usable(o.receiver) || !usable(o.prober)) {
            plan["abort"] = fmt::format("the {} cannot take part (see the findings)",
                                        usable(o.receiver) ? "prober" : "receiver");
        } else if (p.senders.empty()) {
            plan["abort"] = "no rank is left to send: an incast needs at least 3 ranks";
        }
        plan_msg = plan.dump();
    }
    auto plan = parse_message(comm.broadcast(kTagPlan, plan_msg, skip, t0 + start_wait * 2));
    if (!plan) {
        out.error = fmt::format("rank 0 sent no plan within {}", format_duration(start_wait * 2));
        return out;
    }
    Plan p;
    try {
        for (const json& r : plan->at("ranks")) p.ranks.push_back(rank_from_json(r));
        p.receiver = plan->at("receiver").get<int>();
        p.prober = plan->at("prober").get<int>();
        p.senders = plan->at("senders").get<std::vector<int>>();
    } catch (const std::exception& e) {
        out.error = std::string("rank 0 sent a bad plan: ") + e.what();
        return out;
    }
    if (plan->contains("abort")) {
        d.status = "aborted";
        out.error = "the run cannot start: " + (*plan)["abort"].get<std::string>();
        if (root && o.on_progress) o.on_progress(d);
        return out;
    }
    const bool receiver = me == p.receiver;
    const bool prober = me == p.prober;
    const bool sender = std::find(p.senders.begin(), p.senders.end(), me) != p.senders.end();
    if (root) {
        for (const MeshRank& r : d.ranks) skip[r.rank] = skip[r.rank] || !r.error.empty();
        if (o.on_progress) o.on_progress(d);
    } else if (!self.error.empty()) {
        out.error = self.error;
        return out;
    }
    std::vector<int> peers{p.prober};
    peers.insert(peers.end(), p.senders.begin(), p.senders.end());

    // One phase: this rank's part, then every rank reports and rank 0 says go on.
    std::map<int, std::string> connect_errors;  // rank 0: by peer
    std::vector<char> gone(static_cast<size_t>(n), 0);
    auto absorb = [&](Phase ph, const MeshComm::Messages& got) {
        for (int r = 0; r < n; ++r) {
            if (skip[r]) continue;
            auto j = parse_message(got[r]);
            if (!j) {
                skip[r] = 1;
                d.ranks[r].gone = true;
                d.findings.push_back(
                    {"rank-gone", r, static_cast<int>(ph),
                     fmt::format("{} stopped reporting in the {} phase: it died or hangs",
                                 who(d.ranks, r), phase_name(ph))});
                continue;
            }
            if (j->contains("errors")) {
                for (const auto& [peer, why] : (*j)["errors"].items())
                    connect_errors.emplace(std::stoi(peer), why.get<std::string>());
            }
            if (j->contains("connect_error"))
                connect_errors.emplace(r, (*j)["connect_error"].get<std::string>());
            if (j->contains("probe")) {
                IncastProbe pr = probe_from_json((*j)["probe"]);
                (ph == Phase::Idle ? d.idle : d.loaded) = pr;
                if (!pr.measured && pr.error != "interrupted")
                    d.findings.push_back({"probe-failed", r, static_cast<int>(ph),
                                          fmt::format("the {} probe from {} failed: {}",
                                                      phase_name(ph), who(d.ranks, r), pr.error)});
            }
            if (j->contains("flow")) {
                const json& f = (*j)["flow"];
                for (IncastFlow& x : d.flows) {
                    if (x.src != r) continue;
                    x.error = f.value("error", "");
                    if (x.error == "interrupted") {
                        x.error = "not run: the run was interrupted";
                        continue;
                    }
                    x.measured = true;
                    x.ok = f.value("ok", false);
                    x.avg_gbps = f.value("avg_gbps", 0.0);
                    x.min_window_gbps = f.value("min_window_gbps", 0.0);
                    x.bytes = f.value("bytes", uint64_t{0});
                    x.seconds = f.value("seconds", 0.0);
                    if (!x.ok)
                        d.findings.push_back({"flow-failed", r, static_cast<int>(ph),
                                              fmt::format("{} -> {}: {}", who(d.ranks, r),
                                                          who(d.ranks, p.receiver), x.error)});
                }
            }
            if (j->contains("congestion")) {
                const json& c = (*j)["congestion"];
                IncastCongestion ic;
                ic.rank = r;
                ic.error = c.value("error", "");
                if (ic.error.empty()) {
                    auto ch =
                        roce_change_from_json(c.value("change", json::object()), who(d.ranks, r));
                    if (ch) {
                        ic.change = std::move(*ch);
                        try {
                            ic.ip_ecn = c.value("ip_ecn", json::object()).get<CounterMap>();
                        } catch (const std::exception&) {
                            ic.error = "bad IP ECN counters";
                        }
                    } else {
                        ic.error = ch.error().message;
                    }
                }
                d.congestion.push_back(std::move(ic));
            }
        }
    };
    bool stopping = false;
    auto step = [&](Phase ph, json report, MeshDeadline deadline) -> bool {
        auto got = comm.gather(
            tag(ph, Msg::Report), report.dump(), skip, deadline, [&](const MeshComm::Messages&) {
                return stop.stop_requested() && MeshClock::now() > deadline - o.step_timeout;
            });
        std::string go_msg;
        if (root) {
            absorb(ph, got);
            d.wall_seconds = elapsed();
            if (o.on_progress) o.on_progress(d);
            json dead = json::array();
            for (int i = 0; i < n; ++i) {
                if (d.ranks[i].gone) dead.push_back(i);
            }
            go_msg =
                json{{"gone", dead}, {"stop", stop.stop_requested() || d.ranks[p.receiver].gone}}
                    .dump();
        }
        auto go = parse_message(
            comm.broadcast(tag(ph, Msg::Go), go_msg, skip, deadline + o.step_timeout));
        if (!go) {
            out.error = "rank 0 did not answer: the run ended without it";
            return false;
        }
        for (const json& g : (*go)["gone"]) gone[g.get<int>()] = 1;
        stopping = (*go).value("stop", false) || (!root && stop.stop_requested());
        return true;
    };

    // Connect: the receiver pairs with every peer, one after another.
    d.phase = "connect";
    const auto connect_start = MeshClock::now();
    const auto connect_deadline =
        connect_start + o.step_timeout * static_cast<int>(peers.size() + 1);
    Links links;
    json report = json::object();
    if ((receiver || prober || sender) && dev) {
        links = connect_all(comm, *dev, o, p.ranks, me, p.receiver, peers, connect_deadline);
        if (receiver) {
            json errors = json::object();
            for (const auto& [peer, why] : links.errors) errors[std::to_string(peer)] = why;
            report["errors"] = errors;
        } else if (links.errors.count(p.receiver)) {
            report["connect_error"] = links.errors[p.receiver];
        }
    }
    if (!step(Phase::Connect, report, connect_deadline + o.step_timeout)) return out;
    auto my_ep = [&]() -> TestEndpoint* {
        auto it = links.eps.find(p.receiver);
        return it == links.eps.end() ? nullptr : it->second.get();
    };

    // Idle: the probe alone.
    if (!stopping) {
        d.phase = "idle";
        const auto idle_start = MeshClock::now();
        report = json::object();
        if (prober && my_ep()) report["probe"] = probe(*my_ep(), o.probe, o.probe_time, stop);
        if (!step(Phase::Idle, report, idle_start + o.probe_time + o.step_timeout * 2)) return out;
    }

    // Loaded: the incast, the probe through its middle, the counters around it.
    if (!stopping) {
        d.phase = "loaded";
        const auto loaded_start = MeshClock::now();
        const Millis ramp = o.spec.duration / 5;
        report = json::object();
        std::optional<IncastReading> before;
        if (o.read_host && dev) before = o.read_host(*dev);
        if (sender && my_ep() && !gone[p.receiver]) {
            report["flow"] = measure_bandwidth(*my_ep(), o.spec, o.step_timeout, stop);
        } else if (prober && my_ep() && !gone[p.receiver]) {
            if (stop.sleep_for(o.spec.warmup_time + ramp))
                report["probe"] = probe(*my_ep(), o.probe, o.spec.duration * 3 / 5, stop);
            stop.sleep_for(o.spec.duration / 5);
        } else if (receiver) {
            // Passive: the senders WRITE into it, the prober READs from it.
            stop.sleep_for(o.spec.warmup_time + o.spec.duration + Millis(200));
        }
        if (before) {
            IncastReading after = o.read_host(*dev);
            RoceChange c = roce_change(before->roce, after.roce);
            report["congestion"] = {{"change", roce_change_to_json(c)},
                                    {"ip_ecn", counter_deltas(before->ip_ecn, after.ip_ecn)}};
        } else if (o.read_host) {
            report["congestion"] = {{"error", "no device"}};
        }
        const Millis budget = o.spec.warmup_time + o.spec.duration + o.step_timeout * 2;
        if (!step(Phase::Loaded, report, loaded_start + budget)) return out;
    }

    if (root) {
        for (IncastFlow& f : d.flows) {
            if (f.measured || !f.error.empty()) continue;
            if (auto e = connect_errors.find(f.src); e != connect_errors.end())
                f.error = "not run: " + e->second;
            else if (d.ranks[f.src].gone)
                f.error = fmt::format("not run: {} was gone", who(d.ranks, f.src));
            else
                f.error = stopping ? "not run: the run was interrupted" : "not run";
        }
        for (const auto& [peer, why] : connect_errors) {
            d.findings.push_back({"connect-failed", peer, 0,
                                  fmt::format("{} could not pair with the receiver {}: {}",
                                              who(d.ranks, peer), who(d.ranks, p.receiver), why)});
            if (peer == p.prober) {
                d.idle.error = d.loaded.error = "not run: " + why;
            }
        }
        d.phase = "done";
        d.status = stopping ? "interrupted" : "complete";
        d.wall_seconds = elapsed();
        if (o.on_progress) o.on_progress(d);
    }
    out.peers_gone = std::count(gone.begin(), gone.end(), 1) > 0;
    if (!root && stopping && stop.stop_requested()) out.error = "interrupted";
    return out;
}

}  // namespace fabscope::perf
