// bench/mesh_plan_bench: how the `cover` pattern and localization scale, side
// by side with all-pairs (N-1 rounds), on leaf-spine fabrics routed D-mod-K as
// the lab's OpenSM routes them. Prints per size: rounds, lane coverage, the
// time and memory to plan, and, for faults injected at random, the rounds the
// adaptive pass added and the precision and recall of the named lanes.
//
//   build/bench/mesh_plan_bench [TRIALS]
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <set>

#include "perf/localize.h"
#include "perf/schedule.h"
#include "tests/unit/test_fabrics.h"

using namespace fabscope;

namespace {

long peak_rss_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024;
}

struct Size {
    const char* name = "";
    testing::LeafSpineShape shape;
};

}  // namespace

int main(int argc, char** argv) {
    int trials = argc > 1 ? std::atoi(argv[1]) : 5;
    const Size sizes[] = {
        {"648 hosts (18x36x18)", {18, 36, 18, 1}},
        {"2,048 hosts (32x64x32)", {32, 64, 32, 1}},
        {"16,384 hosts (64x128x128)", {64, 128, 128, 1}},
    };
    fmt::print("{:<28} {:>10} {:>11} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9} {:>7}\n", "fabric",
               "all-pairs", "cover", "coverage", "plan s", "RSS MB", "faults", "adaptive",
               "precision", "recall");
    for (const Size& s : sizes) {
        Fabric f = testing::routed_leaf_spine(s.shape);
        auto eps = endpoints_from_fabric(f);
        IbPathOracle oracle(f);
        auto lanes = fabric_lanes(f);
        auto t0 = std::chrono::steady_clock::now();
        Schedule plan = cover(eps, oracle, lanes);
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::mt19937 rng(1);
        // Localization is checked on the two lab sizes; at 16k only the plan.
        bool localize_too = eps.size() <= 2048;
        for (size_t k : {size_t{1}, size_t{3}, size_t{5}}) {
            size_t right = 0;
            size_t named = 0;
            size_t bad_total = 0;
            size_t extra_rounds = 0;
            for (int t = 0; localize_too && t < trials; ++t) {
                std::set<Lane> bad;
                while (bad.size() < k) bad.insert(lanes[rng() % lanes.size()]);
                MeasureRound sim = [&](const Round&, std::vector<FlowObservation>& flows) {
                    for (auto& fl : flows) {
                        fl.slow = false;
                        for (Lane l : fl.lanes) fl.slow |= bad.count(l) > 0;
                    }
                    return true;
                };
                MeshOutcome out = run_and_localize(plan, eps, oracle, f, sim);
                extra_rounds += out.rounds.size() - plan.rounds.size();
                for (const Suspect& su : out.localization.suspects) {
                    if (!su.localized()) continue;
                    ++named;
                    right += bad.count(su.lanes.front());
                }
                bad_total += bad.size();
            }
            auto ratio = [](size_t a, size_t b) {
                return b == 0 ? 1.0 : static_cast<double>(a) / b;
            };
            fmt::print("{:<28} {:>10} {:>11} {:>8.1f}% {:>9.2f} {:>9} {:>9} {:>11} {:>9} {:>7}\n",
                       s.name, eps.size() - 1, plan.rounds.size(),
                       100.0 * plan.coverage->fraction(), secs, peak_rss_mb(), k,
                       localize_too ? fmt::format("{:.1f}", double(extra_rounds) / trials) : "-",
                       localize_too ? fmt::format("{:.3f}", ratio(right, named)) : "-",
                       localize_too ? fmt::format("{:.3f}", ratio(right, bad_total)) : "-");
            if (!localize_too) break;
        }
    }
    return 0;
}
