// cover(): pairs that cross every switch-to-switch lane and test every
// endpoint sending and receiving, in few rounds (schedule/schedule.h).

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "schedule/free_by_leaf.h"
#include "schedule/schedule.h"

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

/// The greedy planner: round by round, each endpoint in turn takes the
/// partner whose two flows cross the most of what is still untested (lanes
/// not yet crossed, sides of endpoints not yet sending or receiving) on
/// lanes no flow of the round uses yet; then endpoints left idle are paired
/// where their flows fit, so lanes are crossed more than once and a slow flow
/// has company to be compared with.
class CoverPlanner {
  public:
    CoverPlanner(const std::vector<MeshEndpoint>& endpoints, const PathOracle& oracle,
                 const std::vector<Lane>& lanes)
        : endpoints_(endpoints),
          oracle_(oracle),
          free_(endpoints),
          used_in_(endpoints.size(), 0),
          sent_(endpoints.size(), 0),
          received_(endpoints.size(), 0) {
        const Lane top = lanes.empty() ? 0 : *std::max_element(lanes.begin(), lanes.end());
        wanted_.assign(lanes.empty() ? 0 : top + 1U, 0);
        for (Lane l : lanes) wanted_[l] = 1;
        lanes_ = uncovered_ = lanes.size();
        untested_ = 2 * endpoints.size();
    }

    Schedule plan(size_t max_rounds, size_t passes) {
        Schedule s;
        s.pattern = Pattern::Cover;
        size_t round = 0;
        for (size_t pass = 0; pass < std::max<size_t>(passes, 1); ++pass) {
            if (pass > 0) want_again();
            for (; round < max_rounds && left() > 0; ++round) {
                const size_t before = left();
                Round r = plan_round(round);
                if (left() == before) break;  // the rest cannot be reached
                s.rounds.push_back(std::move(r));
            }
            // What the first pass reached is what can be reached.
            if (pass == 0) s.coverage = coverage();
            if (round >= max_rounds) break;
        }
        for (const auto& [why, _] : unrouted_) s.unrouted.push_back(why);
        return s;
    }

  private:
    struct Choice {
        size_t b = 0;
        int vab = 0;
        int vba = 0;
        FlowPath ab;
        FlowPath ba;
        size_t gain = 0;
        bool found = false;
    };

    std::vector<std::optional<std::vector<size_t>>> known_;  ///< by endpoint, made on first use
    std::unordered_map<Guid, size_t> index_of_;

    static constexpr size_t kTriesPerSource = 96;
    static constexpr size_t kPerLeaf = 3;

    size_t left() const { return uncovered_ + untested_; }

    Coverage coverage() const {
        Coverage c;
        c.lanes = lanes_;
        c.crossed = lanes_ - uncovered_;
        c.endpoints = endpoints_.size();
        c.senders = static_cast<size_t>(std::count(sent_.begin(), sent_.end(), 1));
        c.receivers = static_cast<size_t>(std::count(received_.begin(), received_.end(), 1));
        return c;
    }

    /// Another pass: every lane and every endpoint's side is wanted once
    /// more (the rounds go on numbering, so the pairs differ).
    void want_again() {
        for (uint8_t& w : wanted_) w = w == 0 ? 0 : 1;
        uncovered_ = lanes_;
        std::fill(sent_.begin(), sent_.end(), 0);
        std::fill(received_.begin(), received_.end(), 0);
        untested_ = 2 * endpoints_.size();
    }

    /// Wanted lanes of `p` not crossed yet.
    size_t lane_gain(const FlowPath& p) const {
        size_t g = 0;
        for (Lane l : p.lanes) g += l < wanted_.size() && wanted_[l] == 1;
        return g;
    }
    /// Sides of a test of a and b, both ways, not tested yet.
    size_t side_gain(size_t a, size_t b) const {
        return (sent_[a] ? 0 : 1) + (received_[a] ? 0 : 1) + (sent_[b] ? 0 : 1) +
               (received_[b] ? 0 : 1);
    }

    /// The best variant of a flow from x to y beside the round's busy lanes.
    std::optional<FlowPath> best_flow(size_t x, size_t y, int& variant) {
        std::optional<FlowPath> best;
        size_t best_gain = 0;
        const int v_count = oracle_.variants(endpoints_[y]);
        for (int v = 0; v < v_count; ++v) {
            FlowPath p = oracle_.path(endpoints_[x], endpoints_[y], v);
            if (!p.ok()) {
                unrouted_.try_emplace(p.error, true);
                continue;
            }
            if (any_busy(p, busy_)) continue;
            const size_t g = lane_gain(p);
            if (!best || g > best_gain) {
                best = std::move(p);
                best_gain = g;
                variant = v;
            }
        }
        return best;
    }

    /// A test of a and b both ways, if both flows fit beside the round's.
    std::optional<Choice> try_pair(size_t a, size_t b) {
        Choice c;
        c.b = b;
        auto ab = best_flow(a, b, c.vab);
        if (!ab) return std::nullopt;
        auto ba = best_flow(b, a, c.vba);
        if (!ba || overlap(*ab, *ba)) return std::nullopt;
        c.gain = lane_gain(*ab) + lane_gain(*ba) + side_gain(a, b);
        c.ab = std::move(*ab);
        c.ba = std::move(*ba);
        c.found = true;
        return c;
    }

    /// The partner of `a` this round: under other leaves first (their flows
    /// cross switch-to-switch lanes), a few free endpoints of each; then,
    /// when a side of `a` is still untested, under its own leaf (whose flows
    /// cross no switch-to-switch lane, so they fit in any round). With
    /// `fill`, the first that fits.
    Choice best_partner(size_t a, size_t round, bool fill) {
        if (const std::vector<size_t>& known = known_partners(a);
            !known.empty() && known.size() + 1 < endpoints_.size())
            return best_known_partner(a, known, round, fill);
        Choice best;
        size_t tries = 0;
        const size_t la = free_.leaf_of(a);
        const size_t leaves = free_.leaves();
        auto consider = [&](size_t leaf) {
            const auto& cands = free_.free_in(leaf);
            for (size_t k = 0; k < std::min(kPerLeaf, cands.size()); ++k) {
                const size_t b = cands[(a + k * 131 + round) % cands.size()];
                if (b == a || used_in_[b] == round + 1) continue;
                ++tries;
                auto c = try_pair(a, b);
                if (!c || (!fill && c->gain == 0)) continue;
                if (!best.found || c->gain > best.gain) best = std::move(*c);
                if (fill) return;
            }
        };
        for (size_t d = 1; d <= leaves && tries < kTriesPerSource; ++d) {
            const size_t lb = (la + d + round) % leaves;
            if (lb == la && leaves > 1) continue;
            consider(lb);
            if (fill && best.found) return best;
        }
        if (!fill && !best.found && leaves > 1 && (!sent_[a] || !received_[a])) consider(la);
        return best;
    }

    /// The endpoints the oracle has paths from `a` to, where it knows some
    /// pairs only (traces sampled on a large fabric): empty where any pair
    /// may be asked. Made once an endpoint.
    const std::vector<size_t>& known_partners(size_t a) {
        if (known_.empty()) {
            known_.resize(endpoints_.size());
            for (size_t i = 0; i < endpoints_.size(); ++i) index_of_.emplace(endpoints_[i].node, i);
        }
        if (!known_[a]) {
            std::vector<size_t> out;
            for (Guid g : oracle_.partners(endpoints_[a].node)) {
                if (auto it = index_of_.find(g); it != index_of_.end() && it->second != a)
                    out.push_back(it->second);
            }
            known_[a] = std::move(out);
        }
        return *known_[a];
    }

    /// best_partner among the pairs the oracle knows: a few tries from a
    /// place that moves with the round, the best gain (or, with `fill`, the
    /// first that fits).
    Choice best_known_partner(size_t a, const std::vector<size_t>& known, size_t round, bool fill) {
        Choice best;
        const size_t tries = std::min(known.size(), kTriesPerSource);
        for (size_t k = 0; k < tries; ++k) {
            const size_t b = known[(a + k + round * 31) % known.size()];
            if (used_in_[b] == round + 1) continue;
            if (!fill && free_.leaf_of(b) == free_.leaf_of(a) && (sent_[a] && received_[a]))
                continue;  // under its own leaf only while a side of it is untested
            auto c = try_pair(a, b);
            if (!c || (!fill && c->gain == 0)) continue;
            if (!best.found || c->gain > best.gain) best = std::move(*c);
            if (fill) break;
        }
        return best;
    }

    void take(size_t a, const Choice& c, size_t round, Round& r) {
        for (const FlowPath* p : {&c.ab, &c.ba}) {
            for (Lane l : p->lanes) {
                busy_.take(l);
                if (l < wanted_.size() && wanted_[l] == 1) {
                    wanted_[l] = 2;
                    --uncovered_;
                }
            }
        }
        for (size_t e : {a, c.b}) {
            untested_ -= (sent_[e] ? 0 : 1) + (received_[e] ? 0 : 1);
            sent_[e] = received_[e] = 1;
            used_in_[e] = static_cast<uint32_t>(round + 1);
            free_.take(e);
        }
        r.tests.push_back(PairTest{a, c.b, c.vab, c.vba});
    }

    /// Two passes: first pairs that test something not yet tested, then
    /// (fill) any pair whose flows fit beside them.
    Round plan_round(size_t round) {
        busy_.next_round();
        free_.reset();
        Round r;
        const size_t n = endpoints_.size();
        for (const bool fill : {false, true}) {
            for (size_t step = 0; step < n; ++step) {
                const size_t a = (step + round * 7919) % n;
                if (used_in_[a] == round + 1) continue;
                Choice best = best_partner(a, round, fill);
                if (best.found) take(a, best, round, r);
            }
        }
        return r;
    }

    const std::vector<MeshEndpoint>& endpoints_;
    const PathOracle& oracle_;
    std::vector<uint8_t> wanted_;  ///< by lane: 0 not wanted, 1 wanted, 2 crossed
    size_t lanes_ = 0;             ///< wanted lanes
    size_t uncovered_ = 0;         ///< of them, not crossed yet
    size_t untested_ = 0;          ///< endpoint sides not tested yet
    FreeByLeaf free_;
    LaneStamps busy_;
    std::vector<uint32_t> used_in_;  ///< the round (from 1) an endpoint is in
    std::vector<uint8_t> sent_;
    std::vector<uint8_t> received_;
    std::map<std::string, bool> unrouted_;
};

}  // namespace

Schedule cover(const std::vector<MeshEndpoint>& endpoints, const PathOracle& oracle,
               const std::vector<Lane>& lanes, size_t max_rounds, size_t passes) {
    return CoverPlanner(endpoints, oracle, lanes).plan(max_rounds, passes);
}

}  // namespace fabscope
