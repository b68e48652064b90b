// Plan diff and validation against a plan on big fabrics: 16,384 hosts under
// 128 leaves and 32 spines (20,480 links). Three plans: the one `plan --from`
// writes (names and GUIDs), the same without GUIDs (names resolved by
// description, as in a plan written by hand), and validate() with that plan
// and a baseline together (both see the same problems: one kept); and half
// the hosts missing, each found where the plan cabled it.
// bench/plan-diff.sh runs it; the goal is linear time.

#include <benchmark/benchmark.h>

#include "../tests/unit/test_fabrics.h"
#include "check/validate.h"
#include "model/plan.h"
#include "model/plan_diff.h"

namespace {

using namespace fabscope;

struct Setup {
    Fabric good;
    Fabric now;
    Fabric half_gone;  // every host of half the leaves missing (powered off)
    Plan plan;
    Plan by_name;

    explicit Setup(int hosts_per_leaf) {
        testing::LeafSpineShape shape{.spines = 32,
                                      .leaves = 128,
                                      .hosts_per_leaf = hosts_per_leaf,
                                      .host_guid_base = 0x10000000};
        auto nodes = testing::leaf_spine_nodes(shape);
        good = *Fabric::build(nodes);
        // What changed: a host cable out, an uplink at 1X.
        testing::unplug(nodes, "leaf07", 3);
        testing::set_link_width(nodes, "leaf09", static_cast<uint8_t>(hosts_per_leaf + 2),
                                Width::X1, WidthSet{Width::X1});
        now = *Fabric::build(nodes);
        std::vector<Node> kept;
        for (Node& n : nodes) {
            bool gone = n.type == NodeType::CA && n.guid % 2 == 0;
            if (gone) continue;
            for (Port& p : n.ports) {
                if (p.peer && p.peer->node >= 0x10000000 && p.peer->node % 2 == 0) {
                    p.peer.reset();
                    p.phys_state = PhysState::Polling;
                }
            }
            kept.push_back(std::move(n));
        }
        half_gone = *Fabric::build(std::move(kept));
        plan = plan_from_fabric(good, classify_tiers(good));
        by_name = plan;
        by_name.guids.clear();
    }
};

void hosts(benchmark::State& state, Plan Setup::*which) {
    Setup s(static_cast<int>(state.range(0)));
    Tiers tiers = classify_tiers(s.now);
    for (auto _ : state) {
        PlanDiff d = diff_against_plan(s.*which, s.now, tiers);
        benchmark::DoNotOptimize(d);
    }
    state.counters["hosts"] = static_cast<double>(128 * state.range(0));
    state.counters["links"] = static_cast<double>(s.now.links().size());
}

void BM_PlanDiff(benchmark::State& state) {
    hosts(state, &Setup::plan);
}
void BM_PlanDiffByName(benchmark::State& state) {
    hosts(state, &Setup::by_name);
}

void BM_PlanDiffHalfTheHostsMissing(benchmark::State& state) {
    Setup s(static_cast<int>(state.range(0)));
    Tiers tiers = classify_tiers(s.half_gone);
    for (auto _ : state) {
        PlanDiff d = diff_against_plan(s.plan, s.half_gone, tiers);
        benchmark::DoNotOptimize(d);
    }
}

void BM_ValidatePlanAndBaseline(benchmark::State& state) {
    Setup s(static_cast<int>(state.range(0)));
    Tiers tiers = classify_tiers(s.now);
    for (auto _ : state) {
        ValidationInput in{s.now, tiers, {}, nullptr, nullptr, &s.by_name, &s.plan};
        Validation v = validate(in);
        benchmark::DoNotOptimize(v);
    }
}

// 1,024, 4,096 and 16,384 hosts: linear time grows 4x a step.
BENCHMARK(BM_PlanDiff)->Arg(8)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanDiffByName)->Arg(8)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanDiffHalfTheHostsMissing)->Arg(8)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ValidatePlanAndBaseline)->Arg(8)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
