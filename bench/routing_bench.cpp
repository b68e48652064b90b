// bench/routing_bench: the routing checks (credit loops, holes, uplink
// balance: check/routing_checks.h) on leaf-spine fabrics routed D-mod-K as
// the lab's OpenSM routes them, from 648 to 16,384 hosts: time and peak
// memory per size; with --load NAME=SNAPSHOT, on swept labs' own tables
// (bench/routing.sh passes the 2,048-host lab's).
//
//   build/bench/routing_bench [--load NAME=SNAPSHOT]...
#include <fmt/format.h>

#include <chrono>
#include <string>
#include <vector>

#include "bench/peak_rss.h"
#include "check/routing_checks.h"
#include "model/snapshot.h"
#include "tests/unit/test_fabrics.h"

using namespace fabscope;
using bench::peak_rss_mb;

namespace {

void measure(const std::string& name, const Fabric& f) {
    const auto t0 = std::chrono::steady_clock::now();
    const RoutingAnalysis a = analyse_routing(f);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto found = routing_findings(f, a, 1.5);
    fmt::print(
        "{:<28} {:>6} hosts {:>5} switches  {:>7.2f} s  peak RSS {:>5} MB  {} loops, {} "
        "holes, {} findings; {}\n",
        name, a.sources, f.nodes().size() - a.sources, s, peak_rss_mb(), a.loops.size(),
        a.holes.size(), found.size(), routing_check_detail(a));
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::pair<std::string, std::string>> loads;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string arg = argv[i + 1];
        if (std::string(argv[i]) != "--load" || arg.find('=') == std::string::npos) {
            fmt::print(stderr, "usage: routing_bench [--load NAME=SNAPSHOT]...\n");
            return 2;
        }
        loads.emplace_back(arg.substr(0, arg.find('=')), arg.substr(arg.find('=') + 1));
    }
    if (loads.empty()) {
        struct Size {
            const char* name = "";
            testing::LeafSpineShape shape;
        };
        const Size sizes[] = {
            {"648 (18 x 36 x 18)", {.spines = 18, .leaves = 36, .hosts_per_leaf = 18}},
            {"2,048 (32 x 64 x 32)", {.spines = 32, .leaves = 64, .hosts_per_leaf = 32}},
            {"16,384 (32 x 128 x 128)",
             {.spines = 32, .leaves = 128, .hosts_per_leaf = 128, .host_guid_base = 0x100000}},
        };
        for (const Size& s : sizes) measure(s.name, testing::routed_leaf_spine(s.shape));
        return 0;
    }
    for (const auto& [name, path] : loads) {
        auto snap = load_snapshot(path);
        if (!snap) {
            fmt::print(stderr, "routing_bench: {}: {}\n", path, snap.error().message);
            return 2;
        }
        measure(name, snap->fabric);
    }
    return 0;
}
