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
#include "mesh/pair_up.h"
#include "mesh/wire.h"
#include "ranks/protocol.h"
#include "util/duration.h"
#include "util/host_name.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

constexpr RankTags kIncastTags{101, 102, 200};
/// The phases, each one step of the ranks' protocol.
enum class Phase : int { Connect = 0, Idle = 1, Loaded = 2 };
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

struct Plan {
    int receiver = 0;
    int prober = 1;
    std::vector<int> senders;
};

/// One rank's incast through its phases.
struct Incast {
    Incast(MeshComm& c, const OpenDevice& op, const IncastOptions& opts, const StopToken& st)
        : comm(c), open(op), o(opts), stop(st), ranks(c, kIncastTags, d.ranks, d.findings) {}

    MeshComm& comm;
    const OpenDevice& open;
    const IncastOptions& o;
    const StopToken& stop;
    IncastOutcome out;
    IncastData& d = out.data;
    RankRun ranks;
    const MeshClock::time_point t0 = MeshClock::now();
    MeshRank self;
    std::unique_ptr<VerbsDevice> dev;
    std::vector<MeshRank> known;
    Plan p;
    std::map<int, std::unique_ptr<TestEndpoint>>
        eps;                                    ///< by peer: the receiver's, or the one to it
    std::map<int, std::string> connect_errors;  ///< rank 0: by peer
    bool stopping = false;

    bool root() const { return ranks.root(); }
    int me() const { return ranks.me(); }
    TestEndpoint* to_receiver() {
        auto it = eps.find(p.receiver);
        return it == eps.end() ? nullptr : it->second.get();
    }
    void progress() {
        if (root() && o.on_progress) o.on_progress(d);
    }
};

/// Rank 0: who receives, who probes, who sends; "abort" when the run cannot.
json plan_on_root(Incast& x) {
    IncastData& d = x.d;
    const IncastOptions& o = x.o;
    const int n = x.ranks.size();
    d.spec = o.spec;
    d.probe = o.probe;
    d.receiver = o.receiver;
    d.prober = o.prober;
    for (const MeshRank& r : d.ranks) {
        if (r.rank != o.receiver && r.rank != o.prober && r.error.empty() && !r.gone)
            d.senders.push_back(r.rank);
    }
    for (int s : d.senders) d.flows.push_back({.src = s});
    json plan = {{"ranks", ranks_json(d.ranks)},
                 {"receiver", o.receiver},
                 {"prober", o.prober},
                 {"senders", d.senders}};
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
    } else if (d.senders.empty()) {
        plan["abort"] = "no rank is left to send: an incast needs at least 3 ranks";
    }
    return plan;
}

/// Hello and the plan. False when this rank's run ends here.
bool start(Incast& x) {
    x.self.rank = x.me();
    x.self.host = host_name();
    x.self.device = x.o.device;
    x.self.port = x.o.port;
    x.dev = open_rank_device(x.open, x.self);
    const Millis start_wait = x.o.step_timeout * 3;
    x.ranks.hello(x.self, x.t0 + start_wait, start_wait);
    bool aborted = false;
    auto plan = x.ranks.plan(x.root() ? plan_on_root(x) : json(), x.t0 + start_wait * 2,
                             start_wait * 2, x.known, x.out, &aborted);
    if (aborted) {
        x.d.status = "aborted";
        x.progress();
    }
    if (!plan) return false;
    auto read = [&](const json& p) {
        x.p.receiver = p.at("receiver").get<int>();
        x.p.prober = p.at("prober").get<int>();
        x.p.senders = p.at("senders").get<std::vector<int>>();
    };
    if (!x.ranks.take_plan(*plan, read, x.self, x.out)) return false;
    if (x.root()) x.progress();
    return true;
}

/// Rank 0: a sender's flow toward the receiver.
void record_flow(Incast& x, Phase ph, int r, const json& f) {
    IncastData& d = x.d;
    for (IncastFlow& fl : d.flows) {
        if (fl.src != r) continue;
        fl.error = f.value("error", "");
        if (fl.error == "interrupted") {
            fl.error = "not run: the run was interrupted";
            continue;
        }
        fl.measured = true;
        fl.ok = f.value("ok", false);
        fl.avg_gbps = f.value("avg_gbps", 0.0);
        fl.min_window_gbps = f.value("min_window_gbps", 0.0);
        fl.bytes = f.value("bytes", uint64_t{0});
        fl.seconds = f.value("seconds", 0.0);
        if (!fl.ok)
            d.findings.push_back({"flow-failed", r, static_cast<int>(ph),
                                  fmt::format("{} -> {}: {}", who(d.ranks, r),
                                              who(d.ranks, x.p.receiver), fl.error)});
    }
}

/// Rank 0: what a rank's congestion counters did over the loaded phase.
IncastCongestion congestion_of(const IncastData& d, int r, const json& c) {
    IncastCongestion ic;
    ic.rank = r;
    ic.error = c.value("error", "");
    if (!ic.error.empty()) return ic;
    auto ch = roce_change_from_json(c.value("change", json::object()), who(d.ranks, r));
    if (!ch) {
        ic.error = ch.error().message;
        return ic;
    }
    ic.change = std::move(*ch);
    try {
        ic.ip_ecn = c.value("ip_ecn", json::object()).get<CounterMap>();
    } catch (const std::exception&) {
        ic.error = "bad IP ECN counters";
    }
    return ic;
}

/// Rank 0: one rank's report of a phase.
void absorb(Incast& x, Phase ph, int r, const json& j) {
    IncastData& d = x.d;
    if (j.contains("errors")) {
        for (const auto& [peer, why] : j["errors"].items())
            x.connect_errors.emplace(std::stoi(peer), why.get<std::string>());
    }
    if (j.contains("connect_error"))
        x.connect_errors.emplace(r, j["connect_error"].get<std::string>());
    if (j.contains("probe")) {
        IncastProbe pr = probe_from_json(j["probe"]);
        (ph == Phase::Idle ? d.idle : d.loaded) = pr;
        if (!pr.measured && pr.error != "interrupted")
            d.findings.push_back({"probe-failed", r, static_cast<int>(ph),
                                  fmt::format("the {} probe from {} failed: {}", phase_name(ph),
                                              who(d.ranks, r), pr.error)});
    }
    if (j.contains("flow")) record_flow(x, ph, r, j["flow"]);
    if (j.contains("congestion")) d.congestion.push_back(congestion_of(d, r, j["congestion"]));
}

/// One phase's step: `report` to rank 0, which answers go on (or stop, when
/// the receiver is gone). False when rank 0 did not answer.
bool step(Incast& x, Phase ph, const json& report, MeshDeadline deadline) {
    RankRun::Step s;
    s.number = static_cast<size_t>(ph);
    s.round = static_cast<int>(ph);
    s.where = fmt::format("the {} phase", phase_name(ph));
    s.report_by = deadline;
    s.go_by = deadline + x.o.step_timeout;
    s.go_waited = std::chrono::duration_cast<Millis>(s.go_by - MeshClock::now());
    s.give_up = [&](const MeshComm::Messages&) {
        return x.stop.stop_requested() && MeshClock::now() > deadline - x.o.step_timeout;
    };
    auto go = x.ranks.step(
        s, report, [&](int r, const json& j) { absorb(x, ph, r, j); },
        [&](json& g) {
            x.d.wall_seconds = std::chrono::duration<double>(MeshClock::now() - x.t0).count();
            x.progress();
            g["stop"] = x.stop.stop_requested() || x.d.ranks[x.p.receiver].gone;
        },
        x.out);
    if (!go) return false;
    x.stopping = go->value("stop", false) || (!x.root() && x.stop.stop_requested());
    return true;
}

/// The receiver pairs with every peer, one after another; a peer with the
/// receiver. Each side reports what did not connect.
bool connect(Incast& x) {
    x.d.phase = "connect";
    const IncastOptions& o = x.o;
    std::vector<int> peers{x.p.prober};
    peers.insert(peers.end(), x.p.senders.begin(), x.p.senders.end());
    const bool receiver = x.me() == x.p.receiver;
    const bool takes_part = receiver || std::count(peers.begin(), peers.end(), x.me()) > 0;
    const Millis wait = o.step_timeout * static_cast<int>(peers.size() + 1);
    const auto deadline = MeshClock::now() + wait;
    json report = json::object();
    if (takes_part && x.dev) {
        std::map<int, std::string> errors;
        for (int peer : receiver ? peers : std::vector<int>{x.p.receiver}) {
            const int tester = receiver ? peer : x.me();
            const EndpointConfig cfg =
                endpoint_config(tester == x.p.prober ? o.probe : o.spec, o.peer);
            PairUp up = pair_up(x.comm, *x.dev, cfg, x.known, peer,
                                {x.ranks.step_tag(0, 2), x.ranks.step_tag(0, 3)}, deadline, wait);
            if (up.ep)
                x.eps[peer] = std::move(up.ep);
            else
                errors[peer] = up.error;
        }
        if (receiver) {
            json e = json::object();
            for (const auto& [peer, why] : errors) e[std::to_string(peer)] = why;
            report["errors"] = e;
        } else if (errors.count(x.p.receiver)) {
            report["connect_error"] = errors[x.p.receiver];
        }
    }
    return step(x, Phase::Connect, report, deadline + o.step_timeout);
}

/// The probe alone.
bool idle(Incast& x) {
    x.d.phase = "idle";
    const auto start_at = MeshClock::now();
    json report = json::object();
    if (x.me() == x.p.prober && x.to_receiver())
        report["probe"] = probe(*x.to_receiver(), x.o.probe, x.o.probe_time, x.stop);
    return step(x, Phase::Idle, report, start_at + x.o.probe_time + x.o.step_timeout * 2);
}

/// The incast, the probe through its middle, every rank's counters around it.
bool loaded(Incast& x) {
    const IncastOptions& o = x.o;
    x.d.phase = "loaded";
    const auto start_at = MeshClock::now();
    const Millis ramp = o.spec.duration / 5;
    const bool sender = std::count(x.p.senders.begin(), x.p.senders.end(), x.me()) > 0;
    json report = json::object();
    std::optional<IncastReading> before;
    if (o.read_host && x.dev) before = o.read_host(*x.dev);
    if (sender && x.to_receiver() && !x.ranks.gone(x.p.receiver)) {
        report["flow"] = measure_bandwidth(*x.to_receiver(), o.spec, o.step_timeout, x.stop);
    } else if (x.me() == x.p.prober && x.to_receiver() && !x.ranks.gone(x.p.receiver)) {
        if (x.stop.sleep_for(o.spec.warmup_time + ramp))
            report["probe"] = probe(*x.to_receiver(), o.probe, o.spec.duration * 3 / 5, x.stop);
        x.stop.sleep_for(o.spec.duration / 5);
    } else if (x.me() == x.p.receiver) {
        // Passive: the senders WRITE into it, the prober READs from it.
        x.stop.sleep_for(o.spec.warmup_time + o.spec.duration + Millis(200));
    }
    if (before) {
        IncastReading after = o.read_host(*x.dev);
        RoceChange c = roce_change(before->roce, after.roce);
        report["congestion"] = {{"change", roce_change_to_json(c)},
                                {"ip_ecn", counter_deltas(before->ip_ecn, after.ip_ecn)}};
    } else if (o.read_host) {
        report["congestion"] = {{"error", "no device"}};
    }
    const Millis budget = o.spec.warmup_time + o.spec.duration + o.step_timeout * 2;
    return step(x, Phase::Loaded, report, start_at + budget);
}

/// Rank 0: why each flow not run was not, and the run's status.
void finish(Incast& x) {
    IncastData& d = x.d;
    for (IncastFlow& f : d.flows) {
        if (f.measured || !f.error.empty()) continue;
        if (auto e = x.connect_errors.find(f.src); e != x.connect_errors.end())
            f.error = "not run: " + e->second;
        else if (d.ranks[f.src].gone)
            f.error = fmt::format("not run: {} was gone", who(d.ranks, f.src));
        else
            f.error = x.stopping ? "not run: the run was interrupted" : "not run";
    }
    for (const auto& [peer, why] : x.connect_errors) {
        d.findings.push_back({"connect-failed", peer, 0,
                              fmt::format("{} could not pair with the receiver {}: {}",
                                          who(d.ranks, peer), who(d.ranks, x.p.receiver), why)});
        if (peer == x.p.prober) d.idle.error = d.loaded.error = "not run: " + why;
    }
    d.phase = "done";
    d.status = x.stopping ? "interrupted" : "complete";
    d.wall_seconds = std::chrono::duration<double>(MeshClock::now() - x.t0).count();
    x.progress();
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
    Incast x(comm, open, o, stop);
    if (!start(x) || !connect(x)) return std::move(x.out);
    if (!x.stopping && !idle(x)) return std::move(x.out);
    if (!x.stopping && !loaded(x)) return std::move(x.out);
    if (x.root()) finish(x);
    if (!x.root() && x.stopping && stop.stop_requested()) x.out.error = "interrupted";
    return std::move(x.out);
}

}  // namespace fabscope::perf
