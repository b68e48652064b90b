#include "schedule/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace fabscope {
namespace {

/// A lane set per round that clears in O(1): a lane is busy when its stamp
/// is the current round's.
class LaneStamps {
  public:
    void next_round() { ++stamp_; }
    bool busy(Lane l) const { return l < stamps_.size() && stamps_[l] == stamp_; }
    void take(Lane l) {
        if (l >= stamps_.size()) stamps_.resize(l + 1U, 0);
        stamps_[l] = stamp_;
    }

  private:
    std::vector<uint32_t> stamps_;
    uint32_t stamp_ = 1;
};

bool any_busy(const FlowPath& p, const LaneStamps& busy) {
    return std::any_of(p.lanes.begin(), p.lanes.end(), [&](Lane l) { return busy.busy(l); });
}

bool overlap(const FlowPath& x, const FlowPath& y) {
    for (Lane l : x.lanes) {
        if (std::find(y.lanes.begin(), y.lanes.end(), l) != y.lanes.end()) return true;
    }
    return false;
}

/// Endpoints grouped by leaf, with O(1) removal of the ones a round has used.
class FreeByLeaf {
  public:
    explicit FreeByLeaf(const std::vector<MeshEndpoint>& endpoints) : leaf_of_(endpoints.size()) {
        std::map<Guid, size_t> index;
        for (size_t i = 0; i < endpoints.size(); ++i) {
            auto [it, fresh] = index.try_emplace(endpoints[i].leaf, groups_.size());
            if (fresh) groups_.emplace_back();
            leaf_of_[i] = it->second;
            groups_[it->second].push_back(i);
        }
        members_ = groups_;
        pos_.resize(endpoints.size());
    }
    void reset() {
        free_ = members_;
        for (const auto& g : free_) {
            for (size_t k = 0; k < g.size(); ++k) pos_[g[k]] = k;
        }
    }
    void take(size_t e) {
        auto& g = free_[leaf_of_[e]];
        size_t k = pos_[e];
        g[k] = g.back();
        pos_[g[k]] = k;
        g.pop_back();
    }
    size_t leaves() const { return groups_.size(); }
    size_t leaf_of(size_t e) const { return leaf_of_[e]; }
    const std::vector<size_t>& free_in(size_t leaf) const { return free_[leaf]; }
    const std::vector<std::vector<size_t>>& groups() const { return groups_; }

  private:
    std::vector<std::vector<size_t>> groups_;
    std::vector<std::vector<size_t>> members_;
    std::vector<std::vector<size_t>> free_;
    std::vector<size_t> leaf_of_;
    std::vector<size_t> pos_;
};

void circle_rounds(const std::vector<size_t>& members, std::vector<Round>& rounds) {
    size_t n = members.size();
    if (n < 2) return;
    constexpr size_t kBye = SIZE_MAX;
    std::vector<size_t> ring(members);
    if (n % 2 == 1) ring.push_back(kBye);
    size_t m = ring.size();
    if (rounds.size() < m - 1) rounds.resize(m - 1);
    for (size_t r = 0; r + 1 < m; ++r) {
        for (size_t i = 0; i < m / 2; ++i) {
            size_t a = ring[i];
            size_t b = ring[m - 1 - i];
            if (a == kBye || b == kBye) continue;
            rounds[r].tests.push_back(PairTest{std::min(a, b), std::max(a, b)});
        }
        // Keep the first in place, turn the rest one step.
        std::rotate(ring.begin() + 1, ring.end() - 1, ring.end());
    }
}

}  // namespace

std::string_view name(Pattern p) {
    switch (p) {
        case Pattern::AllPairs: return "all-pairs";
        case Pattern::Cover: return "cover";
        case Pattern::Leaf: return "leaf";
        case Pattern::Incast: return "incast";
        case Pattern::Pairs: return "pairs";
    }
    return "?";
}

std::optional<Pattern> parse_pattern(std::string_view s) {
    for (Pattern p :
         {Pattern::AllPairs, Pattern::Cover, Pattern::Leaf, Pattern::Incast, Pattern::Pairs}) {
        if (name(p) == s) return p;
    }
    return std::nullopt;
}

size_t Schedule::flows() const {
    size_t n = 0;
    for (const Round& r : rounds) {
        for (const PairTest& t : r.tests) n += t.both_ways ? 2 : 1;
    }
    return n;
}

Schedule all_pairs(size_t n) {
    Schedule s;
    s.pattern = Pattern::AllPairs;
    std::vector<size_t> all(n);
    std::iota(all.begin(), all.end(), size_t{0});
    circle_rounds(all, s.rounds);
    return s;
}

Schedule leaf_pairs(const std::vector<MeshEndpoint>& endpoints) {
    Schedule s;
    s.pattern = Pattern::Leaf;
    FreeByLeaf leaves(endpoints);
    for (const auto& group : leaves.groups()) circle_rounds(group, s.rounds);
    return s;
}

Result<Schedule> incast(const std::vector<MeshEndpoint>& endpoints, size_t receiver, size_t k) {
    if (receiver >= endpoints.size())
        return make_error(
            fmt::format("incast: no endpoint {} (there are {})", receiver, endpoints.size()));
    if (k == 0 || k >= endpoints.size())
        return make_error(
            fmt::format("incast: {} senders asked for, but there are {} other "
                        "endpoints",
                        k, endpoints.size() - 1));
    Schedule s;
    s.pattern = Pattern::Incast;
    s.rounds.emplace_back();
    std::vector<size_t> far;
    std::vector<size_t> near;
    for (size_t d = 1; d < endpoints.size(); ++d) {
        size_t i = (receiver + d) % endpoints.size();
        (endpoints[i].leaf == endpoints[receiver].leaf ? near : far).push_back(i);
    }
    far.insert(far.end(), near.begin(), near.end());
    for (size_t j = 0; j < k; ++j) {
        PairTest t{far[j], receiver};
        t.both_ways = false;
        s.rounds[0].tests.push_back(t);
    }
    return s;
}

Schedule explicit_pairs(size_t n, const std::vector<std::pair<size_t, size_t>>& pairs) {
    Schedule s;
    s.pattern = Pattern::Pairs;
    // busy_until[e]: the first round in which endpoint e is still free.
    std::vector<size_t> next_free(n, 0);
    for (auto [a, b] : pairs) {
        size_t r = std::max(next_free.at(a), next_free.at(b));
        // First fit keeps the order given within each endpoint's tests.
        if (r >= s.rounds.size()) s.rounds.resize(r + 1);
        s.rounds[r].tests.push_back(PairTest{a, b});
        next_free[a] = next_free[b] = r + 1;
    }
    return s;
}

TestFlows flows_of(const PairTest& t, const std::vector<MeshEndpoint>& endpoints,
                   const PathOracle& oracle) {
    TestFlows f;
    f.ab = oracle.path(endpoints[t.a], endpoints[t.b], t.variant_ab);
    if (t.both_ways) f.ba = oracle.path(endpoints[t.b], endpoints[t.a], t.variant_ba);
    return f;
}

Schedule cover(const std::vector<MeshEndpoint>& endpoints, const PathOracle& oracle,
               const std::vector<Lane>& lanes, size_t max_rounds) {
    Schedule s;
    s.pattern = Pattern::Cover;
    const size_t n = endpoints.size();
    Lane top = lanes.empty() ? 0 : *std::max_element(lanes.begin(), lanes.end());
    std::vector<uint8_t> wanted(lanes.empty() ? 0 : top + 1U, 0);
    for (Lane l : lanes) wanted[l] = 1;
    size_t uncovered = lanes.size();
    auto gain_of = [&](const FlowPath& p) {
        size_t g = 0;
        for (Lane l : p.lanes) g += l < wanted.size() && wanted[l] == 1;
        return g;
    };
    auto mark = [&](const FlowPath& p) {
        for (Lane l : p.lanes) {
            if (l < wanted.size() && wanted[l] == 1) {
                wanted[l] = 2;
                --uncovered;
            }
        }
    };

    FreeByLeaf free(endpoints);
    LaneStamps busy;
    std::vector<uint32_t> used_in(n, 0);
    std::map<std::string, bool> unrouted;
    constexpr size_t kTriesPerSource = 96;
    constexpr size_t kPerLeaf = 3;

    struct Choice {
        size_t b = 0;
        int vab = 0;
        int vba = 0;
        FlowPath ab;
        FlowPath ba;
        size_t gain = 0;
        bool found = false;
    };
    // The best variant of a flow from x to y given the round's busy lanes.
    auto best_flow = [&](size_t x, size_t y, int& variant) -> std::optional<FlowPath> {
        std::optional<FlowPath> best;
        size_t best_gain = 0;
        int v_count = oracle.variants(endpoints[y]);
        for (int v = 0; v < v_count; ++v) {
            FlowPath p = oracle.path(endpoints[x], endpoints[y], v);
            if (!p.ok()) {
                unrouted.try_emplace(p.error, true);
                continue;
            }
            if (any_busy(p, busy)) continue;
            size_t g = gain_of(p);
            if (!best || g > best_gain) {
                best = std::move(p);
                best_gain = g;
                variant = v;
            }
        }
        return best;
    };

    for (size_t round = 0; round < max_rounds && uncovered > 0; ++round) {
        busy.next_round();
        free.reset();
        Round r;
        size_t before = uncovered;
        auto take = [&](size_t a, Choice& c) {
            for (const FlowPath* p : {&c.ab, &c.ba}) {
                for (Lane l : p->lanes) busy.take(l);
                mark(*p);
            }
            used_in[a] = used_in[c.b] = static_cast<uint32_t>(round + 1);
            free.take(a);
            free.take(c.b);
            PairTest t{a, c.b, c.vab, c.vba};
            r.tests.push_back(t);
        };
        // Two passes: first pairs that cross lanes not yet crossed, then
        // (fill) any pair whose flows fit beside them.
        for (int pass = 0; pass < 2; ++pass) {
            bool fill = pass == 1;
            for (size_t step = 0; step < n; ++step) {
                size_t a = (step + round * 7919) % n;
                if (used_in[a] == round + 1) continue;
                Choice best;
                size_t tries = 0;
                size_t la = free.leaf_of(a);
                size_t L = free.leaves();
                for (size_t d = 1; d <= L && tries < kTriesPerSource; ++d) {
                    size_t lb = (la + d + round) % L;
                    if (lb == la && L > 1) continue;  // same leaf: no switch-to-switch lane
                    const auto& cands = free.free_in(lb);
                    for (size_t k = 0; k < std::min(kPerLeaf, cands.size()); ++k) {
                        size_t b = cands[(a + k * 131 + round) % cands.size()];
                        if (b == a || used_in[b] == round + 1) continue;
                        ++tries;
                        Choice c;
                        c.b = b;
                        auto ab = best_flow(a, b, c.vab);
                        if (!ab) continue;
                        auto ba = best_flow(b, a, c.vba);
                        if (!ba || overlap(*ab, *ba)) continue;
                        c.gain = gain_of(*ab) + gain_of(*ba);
                        if (!fill && c.gain == 0) continue;
                        if (!best.found || c.gain > best.gain) {
                            c.ab = std::move(*ab);
                            c.ba = std::move(*ba);
                            c.found = true;
                            best = std::move(c);
                        }
                        if (fill) break;
                    }
                    if (fill && best.found) break;
                }
                if (best.found) take(a, best);
            }
        }
        if (uncovered == before) break;  // the rest cannot be reached
        s.rounds.push_back(std::move(r));
    }
    for (const auto& [why, _] : unrouted) s.unrouted.push_back(why);
    s.coverage = Coverage{lanes.size(), lanes.size() - uncovered};
    return s;
}

Coverage coverage_of(const Schedule& s, const std::vector<MeshEndpoint>& endpoints,
                     const PathOracle& oracle, const std::vector<Lane>& lanes) {
    std::unordered_map<Lane, bool> crossed;
    for (Lane l : lanes) crossed.emplace(l, false);
    for (const Round& r : s.rounds) {
        for (const PairTest& t : r.tests) {
            TestFlows f = flows_of(t, endpoints, oracle);
            for (const FlowPath* p : {&f.ab, &f.ba}) {
                for (Lane l : p->lanes) {
                    auto it = crossed.find(l);
                    if (it != crossed.end()) it->second = true;
                }
            }
        }
    }
    Coverage c;
    c.lanes = lanes.size();
    for (const auto& [_, yes] : crossed) c.crossed += yes ? 1 : 0;
    return c;
}

std::string check_round(const Round& r, const std::vector<MeshEndpoint>& endpoints,
                        const PathOracle* oracle, bool disjoint) {
    std::vector<char> seen(endpoints.size(), 0);
    std::unordered_map<Lane, size_t> lane_user;
    for (size_t i = 0; i < r.tests.size(); ++i) {
        const PairTest& t = r.tests[i];
        if (t.a >= endpoints.size() || t.b >= endpoints.size() || t.a == t.b)
            return fmt::format("test {} names endpoints {} and {}", i, t.a, t.b);
        for (size_t e : {t.a, t.b}) {
            if (seen[e]) return fmt::format("{} is in two tests of the round", endpoints[e].name);
            seen[e] = 1;
        }
        if (!disjoint || !oracle) continue;
        TestFlows f = flows_of(t, endpoints, *oracle);
        for (const FlowPath* p : {&f.ab, &f.ba}) {
            for (Lane l : p->lanes) {
                auto [it, fresh] = lane_user.try_emplace(l, i);
                if (!fresh && it->second != i)
                    return fmt::format("tests {} and {} share lane {}", it->second, i, l);
                if (!fresh) return fmt::format("test {} crosses lane {} twice", i, l);
            }
        }
    }
    return {};
}

}  // namespace fabscope
