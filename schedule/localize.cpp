#include "schedule/localize.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace fabscope {

namespace {

/// What the shallow flows through each lane say together, without the flows
/// that cross a suspect already chosen (explaining away): how many, and the
/// sum of their ratios. A deep flow (below `floor`: it failed, or ran far
/// slower than noise takes a flow) speaks for itself in the slow count, and
/// is left out of the mean: two flows of a flaky pair at 0.3 beside two
/// healthy ones average 0.6 on a healthy lane.
class OpenMeans {
  public:
    OpenMeans(const std::vector<FlowObservation>& flows, const LocalizeOptions& o)
        : flows_(flows), o_(o), floor_(0.75 * o.slow_ratio), covered_(flows.size(), 0) {
        for (const FlowObservation& f : flows_) {
            if (!shallow(f)) continue;
            for (Lane l : f.lanes) {
                ++count_[l];
                sum_[l] += f.ratio;
            }
        }
    }
    /// Whether `lane`'s open flows, at least min_judged, average below the
    /// slow ratio.
    bool short_of(Lane lane) const {
        auto c = count_.find(lane);
        return c != count_.end() && judged_short(c->second, sum_.at(lane));
    }
    /// Whether the open flows through `wide` that do not cross `narrow`
    /// fall short on their own: most slow, their mean judged short, or (two
    /// are enough to choose between the two lanes) their mean nearer what
    /// `narrow`'s flows ran at, when that was short, than a healthy flow's 1.
    bool short_beside(Lane wide, Lane narrow) const {
        size_t all = 0, slow = 0, n = 0;
        double sum = 0;
        for (size_t i = 0; i < flows_.size(); ++i) {
            const auto& fl = flows_[i].lanes;
            if (covered_[i] || !crosses(fl, wide) || crosses(fl, narrow)) continue;
            ++all;
            slow += flows_[i].slow;
            if (!shallow(flows_[i])) continue;
            ++n;
            sum += flows_[i].ratio;
        }
        const bool most = slow >= o_.min_slow &&
                          static_cast<double>(slow) >= o_.min_share * static_cast<double>(all);
        if (most || judged_short(n, sum)) return true;
        auto c = count_.find(narrow);
        if (n < 2 || c == count_.end() || c->second == 0) return false;
        // Only when the narrow lane's flows ran short by their rate (a lossy
        // lane's run near 1: the midpoint would be noise).
        const double narrow_mean = sum_.at(narrow) / static_cast<double>(c->second);
        return narrow_mean < o_.slow_ratio &&
               sum / static_cast<double>(n) < (narrow_mean + 1.0) / 2;
    }
    /// The flows crossing any of `lanes` leave every lane's figures.
    void explain(const std::vector<Lane>& lanes) {
        for (size_t i = 0; i < flows_.size(); ++i) {
            const auto& fl = flows_[i].lanes;
            if (covered_[i] ||
                std::none_of(lanes.begin(), lanes.end(), [&](Lane l) { return crosses(fl, l); }))
                continue;
            covered_[i] = 1;
            if (!shallow(flows_[i])) continue;
            for (Lane l : fl) {
                --count_[l];
                sum_[l] -= flows_[i].ratio;
            }
        }
    }

  private:
    static bool crosses(const std::vector<Lane>& path, Lane l) {
        return std::find(path.begin(), path.end(), l) != path.end();
    }
    bool shallow(const FlowObservation& f) const {
        return std::isfinite(f.ratio) && f.ratio >= floor_ && f.ratio <= 2.0;
    }
    bool judged_short(size_t n, double sum) const {
        return n >= std::max<size_t>(o_.min_judged, 1) &&
               sum / static_cast<double>(n) < o_.slow_ratio;
    }
    const std::vector<FlowObservation>& flows_;
    const LocalizeOptions& o_;
    double floor_;
    std::vector<char> covered_;
    std::unordered_map<Lane, size_t> count_;
    std::unordered_map<Lane, double> sum_;
};

/// A lane that crossed every one of `fresh` (the chosen lane's unexplained
/// slow flows) and whose other open flows fall short on their own explains
/// them and more: a slow host NIC's lane beside the one spine downlink that
/// every cross-leaf flow to that host takes (D-mod-K), whose flows are a
/// subset of the NIC's. (When the wider lane's other flows are healthy, the
/// narrower one stands: a cable whose flows all came from one host.)
std::optional<Lane> wider_lane(const std::vector<FlowObservation>& flows,
                               const std::vector<size_t>& fresh, Lane chosen,
                               const std::set<Lane>& taken, const OpenMeans& open) {
    if (fresh.empty()) return std::nullopt;
    std::unordered_map<Lane, size_t> crossed;
    for (size_t f : fresh) {
        for (Lane l : flows[f].lanes) {
            if (l != chosen && !taken.count(l)) ++crossed[l];
        }
    }
    std::optional<Lane> wider;
    for (const auto& [lane, n] : crossed) {
        if (n < fresh.size() || !open.short_beside(lane, chosen)) continue;
        if (!wider || lane < *wider) wider = lane;
    }
    return wider;
}

/// Lanes of unexplained slow flows that no suspect took: too few slow flows
/// crossed them, or too few flows to judge them by.
std::vector<Lane> unjudged_lanes(const std::vector<FlowObservation>& flows,
                                 const std::vector<size_t>& unexplained,
                                 const std::set<Lane>& taken) {
    std::set<Lane> under;
    for (size_t i : unexplained) {
        for (Lane l : flows[i].lanes) {
            if (!taken.count(l)) under.insert(l);
        }
    }
    return {under.begin(), under.end()};
}

/// Another lane that its slow flows crossed nearly as often as the suspect's
/// own (all but one of them): the two are all but confounded.
bool shadowed(const std::vector<FlowObservation>& flows, const Suspect& s, size_t min_slow) {
    std::unordered_map<Lane, size_t> beside;
    for (size_t f : s.evidence) {
        for (Lane l : flows[f].lanes) {
            if (std::find(s.lanes.begin(), s.lanes.end(), l) == s.lanes.end()) ++beside[l];
        }
    }
    const size_t bar = std::max(min_slow, s.evidence.size() - 1);
    return std::any_of(beside.begin(), beside.end(),
                       [&](const auto& b) { return b.second >= bar; });
}

/// The lanes of the slow flows of suspects that may owe them to another
/// lane on their paths, their own included: a suspect resting on few slow
/// flows of its own (noise that slows one healthy flow can make a healthy
/// lane the first suspect, and it then explains, and hides, the slow flow of
/// the bad lane beside it), or one whose slow flows nearly all crossed one
/// other lane as well (a host's lane with a flaky flow more than the cable
/// its other flows crossed). They want more flows before it stands.
std::vector<Lane> contested_lanes(const std::vector<FlowObservation>& flows,
                                  const std::vector<Suspect>& suspects, size_t min_slow) {
    std::set<Lane> thin;
    for (const Suspect& s : suspects) {
        const bool few = s.own_slow < 2 * std::max<size_t>(min_slow, 1);
        if (!few && !shadowed(flows, s, min_slow)) continue;
        for (size_t f : s.evidence) thin.insert(flows[f].lanes.begin(), flows[f].lanes.end());
    }
    return {thin.begin(), thin.end()};
}

/// Per lane: every flow through it, and its slow ones.
struct LaneFlows {
    std::unordered_map<Lane, size_t> total;
    std::unordered_map<Lane, std::vector<size_t>> slow_through;
};

LaneFlows lane_flows(const std::vector<FlowObservation>& flows) {
    LaneFlows out;
    for (size_t i = 0; i < flows.size(); ++i) {
        for (Lane l : flows[i].lanes) {
            ++out.total[l];
            if (flows[i].slow) out.slow_through[l].push_back(i);
        }
    }
    return out;
}

/// Of a lane's slow flows, those no suspect chosen yet explains: how many,
/// and the sum of their strengths.
std::pair<size_t, double> own_slow(const std::vector<FlowObservation>& flows,
                                   const std::vector<char>& explained,
                                   const std::vector<size_t>& slow) {
    std::pair<size_t, double> own{0, 0.0};
    for (size_t f : slow) {
        if (explained[f]) continue;
        ++own.first;
        own.second += std::clamp(flows[f].strength, 0.01, 1.0);
    }
    return own;
}

/// The lane a suspect is made of: its own slow flows, their strengths, and
/// its score.
struct Pick {
    Lane lane = 0;
    size_t count = 0;
    double weight = 0;
    double score = 0;
};

/// The lane explaining the most slow flows not yet explained, weighed by
/// the share of its flows that were slow: the healthy flows through a lane
/// speak for it. Without the weight a host's own lane, slow in 631 of its
/// 647 flows because 630 of them crossed one bad cable (as all-pairs on a
/// D-mod-K leaf-spine makes them), outbid the cable, 630 of 630.
/// Each slow flow counts by its strength: a cable that halves every flow
/// through it also slows the flows of a healthy lane they share with it,
/// and noise that puts a few more of that lane's flows just under the
/// threshold must not make it outbid the cable.
Pick strongest_lane(const std::vector<FlowObservation>& flows, const LaneFlows& by_lane,
                    const std::vector<char>& explained, const std::set<Lane>& taken,
                    const OpenMeans* open, const LocalizeOptions& o) {
    Pick best;
    for (const auto& [lane, slow] : by_lane.slow_through) {
        if (taken.count(lane)) continue;
        if (slow.size() < o.min_slow) continue;
        const double share =
            static_cast<double>(slow.size()) / static_cast<double>(by_lane.total.at(lane));
        // A lane stands on most of its flows slow, or on its open flows' mean.
        if (!(share >= o.min_share || (open && open->short_of(lane)))) continue;
        const auto [fresh, weight] = own_slow(flows, explained, slow);
        // It must explain slow flows of its own, as many as a suspect
        // needs: a host's lane left with one flaky flow once the cable
        // behind it took the rest is no suspect.
        if (fresh < std::max<size_t>(o.min_slow, 1)) continue;
        const double score = weight * share;
        if (score > best.score || (score == best.score && lane < best.lane)) {
            best = Pick{lane, fresh, weight, score};
        }
    }
    return best;
}

/// The pick, or the wider lane that explains its unexplained slow flows and
/// more (see wider_lane).
Pick widened(const std::vector<FlowObservation>& flows, const LaneFlows& by_lane,
             const std::vector<char>& explained, const std::set<Lane>& taken, const OpenMeans& open,
             Pick best) {
    std::vector<size_t> fresh;
    for (size_t f : by_lane.slow_through.at(best.lane)) {
        if (!explained[f]) fresh.push_back(f);
    }
    if (auto wide = wider_lane(flows, fresh, best.lane, taken, open)) {
        best.lane = *wide;
        std::tie(best.count, best.weight) =
            own_slow(flows, explained, by_lane.slow_through.at(best.lane));
    }
    return best;
}

/// The suspect of the picked lane, with the lanes not yet taken that have
/// exactly the same slow flows and the same flows in all: they are
/// indistinguishable from it.
Suspect suspect_of(const LaneFlows& by_lane, const Pick& best, const std::set<Lane>& taken) {
    Suspect s;
    const auto& mine = by_lane.slow_through.at(best.lane);
    const size_t total = by_lane.total.at(best.lane);
    s.slow_flows = mine.size();
    s.own_slow = best.count;
    s.own_weight = best.weight;
    s.total_flows = total;
    s.evidence = mine;
    for (const auto& [lane, slow] : by_lane.slow_through) {
        if (lane == best.lane || taken.count(lane)) continue;
        if (slow == mine && by_lane.total.at(lane) == total) s.lanes.push_back(lane);
    }
    s.lanes.push_back(best.lane);
    std::sort(s.lanes.begin(), s.lanes.end());
    return s;
}

}  // namespace

Localization localize(const std::vector<FlowObservation>& flows, const LocalizeOptions& o) {
    Localization out;
    const LaneFlows by_lane = lane_flows(flows);
    std::optional<OpenMeans> open;
    if (o.slow_ratio > 0) open.emplace(flows, o);
    std::vector<char> explained(flows.size(), 0);
    std::set<Lane> taken;
    for (;;) {
        Pick best = strongest_lane(flows, by_lane, explained, taken, open ? &*open : nullptr, o);
        if (best.count == 0) break;
        if (open) best = widened(flows, by_lane, explained, taken, *open, best);
        Suspect s = suspect_of(by_lane, best, taken);
        for (Lane l : s.lanes) taken.insert(l);
        for (size_t f : s.evidence) explained[f] = 1;
        if (open) open->explain(s.lanes);
        out.suspects.push_back(std::move(s));
    }
    for (size_t i = 0; i < flows.size(); ++i) {
        if (flows[i].slow && !explained[i]) out.unexplained.push_back(i);
    }
    out.undersampled = unjudged_lanes(flows, out.unexplained, taken);
    out.contested = contested_lanes(flows, out.suspects, o.min_slow);
    // The suspects stay in the order chosen (a lane's score only falls as
    // others explain its flows, so each pick scored at most the one before):
    // a lane whose slow flows were mostly a stronger suspect's stands behind
    // it, however many it has.
    return out;
}

double slow_strength(double ratio, double slow_ratio, bool lossy) {
    if (lossy || !std::isfinite(ratio) || ratio <= 0 || slow_ratio <= 0) return 1.0;
    return std::clamp((slow_ratio - ratio) / slow_ratio, 0.05, 1.0);
}

std::vector<CableVerdict> cables_of(const Localization& l) {
    std::map<size_t, CableVerdict> by_link;
    for (const Suspect& s : l.suspects) {
        if (!s.localized()) continue;
        Lane lane = s.lanes.front();
        CableVerdict& v = by_link[link_of_lane(lane)];
        v.link = link_of_lane(lane);
        ((lane & 1U) == 0 ? v.a_to_b : v.b_to_a) = true;
    }
    std::vector<CableVerdict> out;
    out.reserve(by_link.size());
    for (auto& [_, v] : by_link) out.push_back(v);
    return out;
}

namespace {

std::vector<size_t> all_endpoints(size_t n) {
    std::vector<size_t> all(n);
    std::iota(all.begin(), all.end(), size_t{0});
    return all;
}

/// `first`, then every other endpoint of `n`.
std::vector<size_t> then_the_rest(std::vector<size_t> first, size_t n) {
    std::vector<char> in(n, 0);
    for (size_t i : first) in[i] = 1;
    for (size_t i = 0; i < n; ++i) {
        if (!in[i]) first.push_back(i);
    }
    return first;
}

/// Endpoints whose flows can start (or end) at node `at`: itself if it is
/// an endpoint's node, the endpoints cabled to it if it is a leaf, else all.
std::vector<size_t> endpoints_near(const std::vector<MeshEndpoint>& endpoints, Guid at) {
    std::vector<size_t> own;
    std::vector<size_t> under;
    for (size_t i = 0; i < endpoints.size(); ++i) {
        if (endpoints[i].node == at) own.push_back(i);
        if (endpoints[i].leaf == at) under.push_back(i);
    }
    if (!own.empty()) return own;
    if (!under.empty()) return under;
    return all_endpoints(endpoints.size());
}

bool is_endpoint(const std::vector<MeshEndpoint>& endpoints, Guid node) {
    return std::any_of(endpoints.begin(), endpoints.end(),
                       [&](const MeshEndpoint& e) { return e.node == node; });
}

struct Wanted {
    Lane lane;
    std::set<Lane> avoid;
    /// A path through the lane and none it must avoid.
    bool served_by(const std::vector<Lane>& path) const {
        return std::find(path.begin(), path.end(), lane) != path.end() &&
               std::none_of(path.begin(), path.end(), [&](Lane x) { return avoid.count(x) > 0; });
    }
};

/// The lanes to separate: every lane of a suspect not localized, then the
/// undersampled, the uncrossed and the contested ones; each wants flows
/// through it that cross no other suspect.
std::vector<Wanted> wanted_lanes(const Localization& l, const std::vector<Lane>& uncrossed) {
    std::set<Lane> every_suspect;
    for (const Suspect& s : l.suspects) every_suspect.insert(s.lanes.begin(), s.lanes.end());
    std::vector<Wanted> wants;
    for (const Suspect& s : l.suspects) {
        if (s.localized()) continue;
        for (Lane lane : s.lanes) {
            Wanted w{lane, every_suspect};
            w.avoid.erase(lane);
            wants.push_back(std::move(w));
        }
    }
    for (const std::vector<Lane>* more : {&l.undersampled, &uncrossed, &l.contested}) {
        for (Lane lane : *more) {
            if (std::any_of(wants.begin(), wants.end(),
                            [&](const Wanted& w) { return w.lane == lane; }))
                continue;
            Wanted w{lane, every_suspect};
            w.avoid.erase(lane);
            wants.push_back(std::move(w));
        }
    }
    return wants;
}

/// A one-way test for a wanted lane, and the lanes its flow crosses.
struct Candidate {
    PairTest test;
    std::vector<Lane> lanes;
};

/// Candidate one-way tests for a wanted lane: pairs of endpoints near its
/// two ends (at most kSample of them tried), each with the first path
/// variant that serves it.
std::vector<Candidate> candidates_for(const Wanted& want,
                                      const std::vector<MeshEndpoint>& endpoints,
                                      const PathOracle& oracle, const Fabric& f) {
    std::vector<Candidate> options;
    constexpr size_t kSample = 4096;
    const Link& link = f.links().at(link_of_lane(want.lane));
    bool forward = (want.lane & 1U) == 0;
    Guid from = forward ? link.a.node : link.b.node;
    Guid to = forward ? link.b.node : link.a.node;
    auto srcs = endpoints_near(endpoints, from);
    auto dsts = endpoints_near(endpoints, to);
    // A host's own cable: the flow may go on to (or come from) anyone,
    // the hosts under its leaf first (their flows cross no other lane).
    if (is_endpoint(endpoints, from)) dsts = then_the_rest(std::move(dsts), endpoints.size());
    if (is_endpoint(endpoints, to)) srcs = then_the_rest(std::move(srcs), endpoints.size());
    size_t tried = 0;
    for (size_t si = 0; si < srcs.size() && tried < kSample; ++si) {
        for (size_t di = 0; di < dsts.size() && tried < kSample; ++di) {
            size_t a = srcs[si];
            size_t b = dsts[(di + si) % dsts.size()];
            if (a == b) continue;
            ++tried;
            for (int v = 0; v < oracle.variants(endpoints[b]); ++v) {
                FlowPath p = oracle.path(endpoints[a], endpoints[b], v);
                if (!p.ok()) continue;
                if (want.served_by(p.lanes)) {
                    PairTest t{a, b, v, 0, false};
                    options.push_back(Candidate{t, std::move(p.lanes)});
                    break;
                }
            }
        }
    }
    return options;
}

/// Packs the candidates into rounds: each round takes, for each wanted lane
/// still short of `per_lane` flows, the candidates that fit beside what the
/// round already holds (no endpoint or lane twice).
class RoundPacker {
  public:
    RoundPacker(const std::vector<Wanted>& wants,
                const std::vector<std::vector<Candidate>>& options, size_t per_lane,
                size_t max_per_round)
        : wants_(wants),
          options_(options),
          per_lane_(per_lane),
          max_per_round_(max_per_round),
          got_(wants.size(), 0),
          spent_(wants.size()),
          order_(wants.size()) {
        for (size_t w = 0; w < wants.size(); ++w) spent_[w].assign(options[w].size(), 0);
    }

    /// The next round; empty when no candidate is left to run.
    Round next() {
        Round round;
        round.adaptive = true;
        std::set<size_t> busy_ep;
        std::set<Lane> busy_lane;
        // Each round serves first the wanted lanes with the fewest flows so
        // far, so a lane late in the list is not starved by endpoints the
        // others keep busy round after round.
        std::iota(order_.begin(), order_.end(), size_t{0});
        std::stable_sort(order_.begin(), order_.end(),
                         [&](size_t x, size_t y) { return got_[x] < got_[y]; });
        for (size_t w : order_) {
            auto room = [&] { return max_per_round_ == 0 || round.tests.size() < max_per_round_; };
            for (size_t k = 0; room() && k < options_[w].size() && got_[w] < per_lane_; ++k) {
                if (spent_[w][k]) continue;
                const Candidate& c = options_[w][k];
                bool fits = !busy_ep.count(c.test.a) && !busy_ep.count(c.test.b) &&
                            std::none_of(c.lanes.begin(), c.lanes.end(),
                                         [&](Lane x) { return busy_lane.count(x) > 0; });
                if (!fits) continue;
                spent_[w][k] = 1;
                count(w, c);
                busy_ep.insert(c.test.a);
                busy_ep.insert(c.test.b);
                busy_lane.insert(c.lanes.begin(), c.lanes.end());
                round.tests.push_back(c.test);
            }
        }
        return round;
    }

  private:
    /// A candidate taken for wanted lane `w` counts for every wanted lane
    /// it crosses cleanly, and is not run again for any of them.
    void count(size_t w, const Candidate& c) {
        for (size_t v = 0; v < wants_.size(); ++v) {
            if (v != w && !wants_[v].served_by(c.lanes)) continue;
            ++got_[v];
            for (size_t j = 0; j < options_[v].size(); ++j) {
                const PairTest& t = options_[v][j].test;
                if (t.a == c.test.a && t.b == c.test.b && t.variant_ab == c.test.variant_ab)
                    spent_[v][j] = 1;
            }
        }
    }

    const std::vector<Wanted>& wants_;
    const std::vector<std::vector<Candidate>>& options_;
    size_t per_lane_;
    size_t max_per_round_;
    std::vector<size_t> got_;
    std::vector<std::vector<char>> spent_;
    std::vector<size_t> order_;
};

}  // namespace

std::vector<Round> separating_rounds(const Localization& l, const std::vector<Lane>& uncrossed,
                                     const std::vector<MeshEndpoint>& endpoints,
                                     const PathOracle& oracle, const Fabric& f, size_t per_lane,
                                     size_t max_rounds, size_t max_per_round) {
    const std::vector<Wanted> wants = wanted_lanes(l, uncrossed);
    std::vector<std::vector<Candidate>> options;
    options.reserve(wants.size());
    for (const Wanted& w : wants) options.push_back(candidates_for(w, endpoints, oracle, f));
    RoundPacker packer(wants, options, per_lane, max_per_round);
    std::vector<Round> rounds;
    for (size_t r = 0; r < max_rounds; ++r) {
        Round round = packer.next();
        if (round.tests.empty()) break;
        rounds.push_back(std::move(round));
    }
    return rounds;
}

}  // namespace fabscope

namespace fabscope {

MeshOutcome run_and_localize(const Schedule& plan, const std::vector<MeshEndpoint>& endpoints,
                             const PathOracle& oracle, const Fabric& f, const MeasureRound& measure,
                             const AdaptiveOptions& o) {
    MeshOutcome out;
    size_t next_test = 0;
    auto run = [&](const Round& r) {
        std::vector<FlowObservation> flows;
        for (const PairTest& t : r.tests) {
            TestFlows paths = flows_of(t, endpoints, oracle);
            FlowObservation ab{next_test, t.a, t.b, std::move(paths.ab.lanes)};
            flows.push_back(std::move(ab));
            if (t.both_ways)
                flows.push_back(FlowObservation{next_test, t.b, t.a, std::move(paths.ba.lanes)});
            ++next_test;
        }
        bool go_on = measure(r, flows);
        out.rounds.push_back(r);
        out.flows.insert(out.flows.end(), std::make_move_iterator(flows.begin()),
                         std::make_move_iterator(flows.end()));
        return go_on;
    };
    for (const Round& r : plan.rounds) {
        if (!run(r)) {
            out.complete = false;
            out.localization = localize(out.flows, o.localize);
            return out;
        }
    }
    out.localization = localize(out.flows, o.localize);
    size_t adaptive = 0;
    while (adaptive < o.max_adaptive_rounds) {
        auto extra = separating_rounds(out.localization, {}, endpoints, oracle, f, o.per_lane,
                                       o.max_adaptive_rounds - adaptive);
        if (extra.empty()) break;
        for (const Round& r : extra) {
            ++adaptive;
            if (!run(r)) {
                out.complete = false;
                break;
            }
        }
        out.localization = localize(out.flows, o.localize);
        if (!out.complete) break;
    }
    return out;
}

}  // namespace fabscope
