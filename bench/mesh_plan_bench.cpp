// bench/mesh_plan_bench: how the `cover` pattern and localization scale, side
// by side with all-pairs (N-1 rounds), on leaf-spine fabrics routed D-mod-K as
// the lab's OpenSM routes them. Prints per size the rounds, lane coverage,
// the hosts that send and receive, time and memory to plan; then, on the
// 648- and 2,048-host fabrics, for k = 1..5 degraded lanes at random and 1 %
// of the flows slow at random, the precision and recall of the named lanes
// and the rounds used by cover alone, cover plus the adaptive pass, cover in
// three passes (every lane crossed three times, other pairs each time) plus
// the adaptive pass, and (with --all-pairs, one trial each: N-1 rounds of N
// flows) all-pairs, in each of
// the faults' scenarios: lanes at 0.4 of the expected rate with +-10 % noise
// (a cable trained at a lower width), milder and noisier as production has
// them (0.7 and 0.85, +-20 %), lossy lanes (0.95 of the rate, but the flows
// through them retransmit: a marginal cable), and lanes at 0.7 beside a slow
// host NIC (every flow into one host at 0.7: a host, not a cable, which the
// localization must name as the host's own lane and not blame a cable for).
//
// With --load, the fabrics are snapshots instead (the labs swept: the
// forwarding tables their OpenSM wrote; bench/mesh-plan-labs.sh passes them).
//
//   build/bench/mesh_plan_bench [TRIALS] [--all-pairs] [--load NAME=SNAPSHOT]...
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench/peak_rss.h"
#include "model/snapshot.h"
#include "schedule/localize.h"
#include "schedule/schedule.h"
#include "tests/unit/test_fabrics.h"

using namespace fabscope;
using bench::peak_rss_mb;

namespace {

struct Size {
    const char* name = "";
    testing::LeafSpineShape shape;
};

/// Precision and recall of the lanes one method names, over `trials` fabrics
/// with k degraded lanes each, and the rounds it used on average.
struct Score {
    size_t right = 0;
    size_t named = 0;
    size_t bad = 0;
    size_t rounds = 0;
    int trials = 0;
    double precision() const { return named == 0 ? 1.0 : static_cast<double>(right) / named; }
    double recall() const { return bad == 0 ? 1.0 : static_cast<double>(right) / bad; }
};

/// One kind of fault, as the flows through it measure it.
struct Scenario {
    const char* name = "";
    double lane_rate = 0.4;   ///< of the expected, through a degraded lane
    double noise = 0.1;       ///< +- on every flow
    bool lossy = false;       ///< the degraded lanes' flows retransmit
    bool slow_host = false;   ///< and one host receives at lane_rate too
    double slow_ratio = 0.6;  ///< a flow below this share of the expected is slow
};

const Scenario kScenarios[] = {
    {"0.4, +-10 %", 0.4, 0.1, false, false, 0.6},
    {"0.7, +-20 %", 0.7, 0.2, false, false, 0.8},
    {"0.85, +-20 %", 0.85, 0.2, false, false, 0.8},
    {"lossy 0.95, +-20 %", 0.95, 0.2, true, false, 0.8},
    {"0.7 + slow host NIC", 0.7, 0.2, false, true, 0.8},
};

/// What a flow measures: `lane_rate` of the expected through a degraded
/// lane (and a lossy one retransmits), noise on every flow, and 1 % of the
/// flows slow for no reason of the fabric's (a busy host, a flaky pair).
struct Simulation {
    const Scenario& sc;
    const std::set<Lane>& bad;
    std::mt19937& rng;
    bool measure(const Round&, std::vector<FlowObservation>& flows) {
        std::uniform_real_distribution<double> noise(1 - sc.noise, 1 + sc.noise);
        std::uniform_real_distribution<double> u(0, 1);
        for (auto& fl : flows) {
            double r = noise(rng);
            bool lossy = false;
            for (Lane l : fl.lanes) {
                if (!bad.count(l)) continue;
                r *= sc.lane_rate;
                lossy = lossy || sc.lossy;
            }
            if (u(rng) < 0.01) r *= 0.3;
            fl.ratio = r;
            fl.slow = r < sc.slow_ratio || lossy;
            fl.strength = slow_strength(r, sc.slow_ratio, lossy);
        }
        return true;
    }
};

/// The lane into the host of endpoint `e` (its leaf's port toward it).
std::optional<Lane> lane_into(const Fabric& f, const MeshEndpoint& e) {
    const PortRef host{e.node, e.port};
    const Link* link = f.link_of(host);
    if (!link) return std::nullopt;
    const auto index = static_cast<size_t>(link - f.links().data());
    return lane_of(index, !(link->a == host));
}

void score(Score& s, const MeshOutcome& out, const std::set<Lane>& bad, size_t planned) {
    for (const Suspect& su : out.localization.suspects) {
        if (!su.localized()) continue;
        ++s.named;
        s.right += bad.count(su.lanes.front());
    }
    s.bad += bad.size();
    s.rounds += std::max(out.rounds.size(), planned);
    ++s.trials;
}

struct Planned {
    Fabric f;
    std::vector<MeshEndpoint> eps;
    std::vector<Lane> lanes;
    Schedule plan;
    Schedule three_passes;  ///< cover with every lane crossed three times
    const char* name = "";
};

/// One scenario's table: per fabric and k, each method's rounds, precision
/// and recall. With a slow host, its lane into the host is one of the k
/// faults (the host named by its own lane is right; a cable blamed for it is
/// a wrong name).
void localize_scenario(const Scenario& sc, const std::vector<Planned>& lab, int trials,
                       bool with_all_pairs) {
    fmt::print(
        "\nLocalization, {}: k faults at random ({} of the expected rate{}{}), +-{:.0f} % noise, "
        "1 % of flows slow at random; {} trials each; a flow is slow below {:.2f}{}\n",
        sc.name, sc.lane_rate, sc.lossy ? ", retransmitting" : "",
        sc.slow_host ? ", one of them a host NIC's receive side" : "", sc.noise * 100, trials,
        sc.slow_ratio, sc.lossy ? " or when it retransmits" : "");
    fmt::print("{:<28} {:>2} {:<18} {:>7} {:>9} {:>7}\n", "fabric", "k", "method", "rounds",
               "precision", "recall");
    for (size_t i = 0; i < lab.size(); ++i) {
        const Planned& p = lab[i];
        IbPathOracle oracle(p.f);
        const Schedule every = all_pairs(p.eps.size());
        for (size_t k = 1; k <= 5; ++k) {
            Score cover_only;
            Score adaptive;
            Score three;
            Score pairs;
            std::mt19937 rng(static_cast<unsigned>(1000 * i + k));
            for (int t = 0; t < trials; ++t) {
                std::set<Lane> bad;
                if (sc.slow_host) {
                    if (auto l = lane_into(p.f, p.eps[rng() % p.eps.size()])) bad.insert(*l);
                }
                while (bad.size() < k) bad.insert(p.lanes[rng() % p.lanes.size()]);
                Simulation sim{sc, bad, rng};
                MeasureRound m = [&](const Round& r, std::vector<FlowObservation>& fl) {
                    return sim.measure(r, fl);
                };
                // Judged as mesh run judges them: a lane's flows together
                // against the slow ratio, besides one by one.
                AdaptiveOptions none;
                none.localize.slow_ratio = sc.slow_ratio;
                none.max_adaptive_rounds = 0;
                AdaptiveOptions judged;
                judged.localize.slow_ratio = sc.slow_ratio;
                score(cover_only, run_and_localize(p.plan, p.eps, oracle, p.f, m, none), bad,
                      p.plan.rounds.size());
                score(adaptive, run_and_localize(p.plan, p.eps, oracle, p.f, m, judged), bad,
                      p.plan.rounds.size());
                score(three, run_and_localize(p.three_passes, p.eps, oracle, p.f, m, judged), bad,
                      p.three_passes.rounds.size());
                if (with_all_pairs && t == 0) {
                    score(pairs, run_and_localize(every, p.eps, oracle, p.f, m, none), bad,
                          every.rounds.size());
                }
            }
            auto row = [&](const char* method, const Score& s) {
                if (s.trials == 0) return;
                fmt::print("{:<28} {:>2} {:<18} {:>7.1f} {:>9.3f} {:>7.3f}\n", p.name, k, method,
                           static_cast<double>(s.rounds) / s.trials, s.precision(), s.recall());
            };
            row("cover", cover_only);
            row("cover+adaptive", adaptive);
            row("cover x3+adaptive", three);
            row("all-pairs (1)", pairs);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    int trials = 5;
    bool with_all_pairs = false;
    std::vector<std::pair<std::string, std::string>> snapshots;  // name, file
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--all-pairs") {
            with_all_pairs = true;
        } else if (arg == "--load" && a + 1 < argc) {
            const std::string v = argv[++a];
            const auto eq = v.find('=');
            if (eq == std::string::npos || eq == 0) {
                fmt::print(stderr, "--load NAME=SNAPSHOT, e.g. --load \"648 lab=snap.json\"\n");
                return 2;
            }
            snapshots.emplace_back(v.substr(0, eq), v.substr(eq + 1));
        } else if (std::atoi(arg.c_str()) > 0) {
            trials = std::atoi(arg.c_str());
        } else {
            fmt::print(stderr,
                       "usage: mesh_plan_bench [TRIALS] [--all-pairs] "
                       "[--load NAME=SNAPSHOT]...\n");
            return 2;
        }
    }
    std::vector<Size> sizes = {
        {"16 hosts (2x4x4), the lab's", {2, 4, 4, 1}},
        {"648 hosts (18x36x18)", {18, 36, 18, 1}},
        {"2,048 hosts (32x64x32)", {32, 64, 32, 1}},
        {"4,608 hosts (16x72x64)", {16, 72, 64, 1}},
        {"16,384 hosts (64x128x128)", {64, 128, 128, 1}},
    };
    std::vector<std::string> names;  // kept: Size holds a pointer to its name
    std::vector<Fabric> loaded;
    if (!snapshots.empty()) sizes.clear();
    for (const auto& [name, file] : snapshots) {
        auto snap = load_snapshot(file);
        if (!snap) {
            fmt::print(stderr, "{}\n", snap.error().message);
            return 2;
        }
        loaded.push_back(std::move(snap->fabric));
        names.push_back(name);
    }
    for (const std::string& n : names) sizes.push_back({n.c_str(), {}});
    fmt::print(
        "Plans: rounds, coverage of every switch-to-switch lane, hosts sending and receiving\n");
    fmt::print("{:<28} {:>10} {:>7} {:>9} {:>13} {:>9} {:>9}\n", "fabric", "all-pairs", "cover",
               "coverage", "hosts tx/rx", "plan s", "RSS MB");
    std::vector<Planned> lab;
    for (size_t at = 0; at < sizes.size(); ++at) {
        const Size& s = sizes[at];
        Fabric f = loaded.empty() ? testing::routed_leaf_spine(s.shape) : std::move(loaded[at]);
        auto eps = endpoints_from_fabric(f);
        IbPathOracle oracle(f);
        auto lanes = fabric_lanes(f);
        auto t0 = std::chrono::steady_clock::now();
        Schedule plan = cover(eps, oracle, lanes);
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const Coverage& c = *plan.coverage;
        fmt::print("{:<28} {:>10} {:>7} {:>8.1f}% {:>13} {:>9.2f} {:>9}\n", s.name, eps.size() - 1,
                   plan.rounds.size(), 100.0 * c.fraction(),
                   fmt::format("{}/{} of {}", c.senders, c.receivers, c.endpoints), secs,
                   peak_rss_mb());
        // Localization is checked on the two lab sizes; at 16k only the plan.
        if (eps.size() >= 648 && eps.size() <= 2048) {
            Schedule three = cover(eps, oracle, lanes, 8, 3);
            lab.push_back(
                {std::move(f), std::move(eps), lanes, std::move(plan), std::move(three), s.name});
        }
    }

    for (const Scenario& sc : kScenarios) localize_scenario(sc, lab, trials, with_all_pairs);
    return 0;
}
