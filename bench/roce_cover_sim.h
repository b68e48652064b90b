#pragma once
// bench/mesh_rank0_bench's RoCE fabric: leaves of 32 ranks under spines
// that ECMP picks by a hash of the flow's addresses and UDP source port, as
// a routed leaf-spine does. It gives what the ranks would give rank 0 of a
// cover: each rank's traces (cover_trace_targets, every traced port) before
// the rounds, and each flow's own traced path with its report. Flows through
// two leaf-spine lanes chosen at random run at 0.4 of the others.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "mesh/cover_traces.h"
#include "mesh/run_data.h"
#include "model/paths.h"
#include "trace/roce_sport.h"

namespace fabscope::bench {

class RoceCoverSim {
  public:
    static constexpr int kPerLeaf = 32;
    /// A leaf-spine lane: leaf, spine, up (leaf to spine) or down.
    using Lane3 = std::tuple<int, int, bool>;

    RoceCoverSim(int hosts, std::mt19937& rng)
        : leaves_(std::max(2, hosts / kPerLeaf)), spines_(std::min(32, std::max(2, leaves_ / 2))) {
        std::uniform_int_distribution<int> leaf(0, leaves_ - 1), spine(0, spines_ - 1);
        while (bad_.size() < 2) bad_.insert({leaf(rng), spine(rng), bad_.empty()});
    }
    [[nodiscard]] int spines() const { return spines_; }
    [[nodiscard]] int leaves() const { return leaves_; }
    [[nodiscard]] const std::set<Lane3>& bad() const { return bad_; }

    /// The ranks as their hellos would give them: rank r under leaf r / 32.
    static std::vector<perf::MeshRank> ranks(int hosts) {
        std::vector<perf::MeshRank> out;
        out.reserve(static_cast<size_t>(hosts));
        for (int r = 0; r < hosts; ++r) {
            out.push_back({.rank = r,
                           .host = fmt::format("h{:04}", r),
                           .device = "rxe0",
                           .port = 1,
                           .address = fmt::format("10.{}.{}.{}", leaf_of(r), r % kPerLeaf, 1)});
        }
        return out;
    }

    /// What every rank's traces bring rank 0: `targets` ranks each, every
    /// port of `sports` (no hops under one leaf: no router between).
    void trace(perf::MeshRunData& d, int targets) const {
        const int n = static_cast<int>(d.ranks.size());
        for (int me = 0; me < n; ++me) {
            for (int t : perf::cover_trace_targets(me, n, targets)) {
                for (size_t v = 0; v < d.sports.size(); ++v)
                    d.add_trace(me, t, static_cast<int>(v), hops(me, t, d.sports[v]));
            }
        }
    }

    /// The routers from `s` to `t` for UDP source port `sport`.
    [[nodiscard]] std::vector<perf::TraceHop> hops(int s, int t, uint16_t sport) const {
        const int ls = leaf_of(s), lt = leaf_of(t);
        if (ls == lt) return {};
        const int sp = spine_of(s, t, sport);
        return {{1, fmt::format("10.{}.0.254", ls), fmt::format("l{}", ls), 0.1},
                {2, fmt::format("10.200.{}.{}", sp, ls), fmt::format("s{}", sp), 0.2},
                {3, fmt::format("10.201.{}.{}", lt, sp), fmt::format("l{}", lt), 0.3}};
    }

    /// The UDP source port of a flow sent with `label` (0: the QP's own,
    /// as rxe picks it: any port).
    [[nodiscard]] static uint16_t sport_of(int s, int t, uint32_t label) {
        if (label != 0) return sport_for_flow_label(label);
        return static_cast<uint16_t>(49152 + (static_cast<unsigned>(s) * 7919U + t) % 16384);
    }

    /// How much of the healthy rate a flow gets: 0.4 through a bad lane.
    [[nodiscard]] double rate(int s, int t, uint16_t sport) const {
        const int ls = leaf_of(s), lt = leaf_of(t);
        if (ls == lt) return 1.0;
        const int sp = spine_of(s, t, sport);
        return bad_.count({ls, sp, true}) || bad_.count({lt, sp, false}) ? 0.4 : 1.0;
    }

    /// Whether a lane suspect's name is one of the bad lanes.
    [[nodiscard]] bool is_bad(const std::string& name) const {
        for (const auto& [leaf, spine, up] : bad_) {
            const std::string l = fmt::format("l{}[", leaf), s = fmt::format("s{}[", spine);
            const size_t at_l = name.find(l), at_s = name.find(s);
            if (at_l != std::string::npos && at_s != std::string::npos && (at_l < at_s) == up)
                return true;
        }
        return false;
    }

  private:
    static int leaf_of(int r) { return r / kPerLeaf; }
    [[nodiscard]] int spine_of(int s, int t, uint16_t sport) const {
        uint64_t h = (static_cast<uint64_t>(s) << 40) ^ (static_cast<uint64_t>(t) << 20) ^ sport;
        h *= 0x9E3779B97F4A7C15ULL;
        return static_cast<int>((h >> 33) % static_cast<uint64_t>(spines_));
    }

    int leaves_;
    int spines_;
    std::set<Lane3> bad_;
};

}  // namespace fabscope::bench
