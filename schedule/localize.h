#pragma once
// Localization: from which flows fell short, name the lanes (cables, in the
// direction crossed) that explain them. Pure, over observations: each flow's
// lanes and whether it was slow.
//
// A lane is a suspect when enough slow flows cross it (min_slow) and most
// flows that cross it are slow (min_share), or its flows judged together
// fall short (their mean, without the flows a suspect chosen before it
// explains): a bad cable slows everything through it, while a slow host or
// noise slows flows that share no cable.
// Suspects are chosen greedily, the lane that explains the most slow flows
// (weighed by how slow they were) first; lanes that explain exactly the same
// flows cannot be told apart and are reported together (confounded), which
// is what the adaptive rounds then separate with flows that cross one of them
// and not the others.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "model/paths.h"
#include "schedule/schedule.h"

namespace fabscope {

struct FlowObservation {
    size_t test = 0;  ///< which pair test (round-wide unique), for the evidence
    size_t src = 0;   ///< endpoint indices
    size_t dst = 0;
    std::vector<Lane> lanes;
    bool slow = false;
    double ratio = 1.0;  ///< measured / expected
    /// How strongly a slow flow speaks, in (0, 1]: one that failed, or ran
    /// at a tenth, says more against its path than one just under the
    /// threshold, which noise alone can put there.
    double strength = 1.0;
};

struct LocalizeOptions {
    size_t min_slow = 2;      ///< slow flows a lane needs to stand as a suspect
    double min_share = 0.75;  ///< of the flows through it, the share that were slow
    /// A flow is slow below this share of the expected (0: not given). When
    /// given, a lane also stands when its shallow flows (at least 3/4 of
    /// this: a deeper one, failed or far slower, speaks for itself in the
    /// slow count) judged together fall short: their mean ratio below it over
    /// at least `min_judged` flows that no suspect chosen before explains. A
    /// lane at 0.7 of the rate under +-20 % noise puts one flow in seven over
    /// a threshold of 0.8: counted one by one, 3 slow of 5 is no majority;
    /// averaged, the five say 0.7.
    double slow_ratio = 0;
    size_t min_judged = 3;
};

struct Suspect {
    /// The lanes that explain the same slow flows; one when localized.
    std::vector<Lane> lanes;
    size_t slow_flows = 0;   ///< slow flows through the lane(s)
    size_t total_flows = 0;  ///< all observed flows through the first lane
    /// Its slow flows that no suspect chosen before it explained, and the sum
    /// of their strengths (what it was chosen by, with its share).
    size_t own_slow = 0;
    double own_weight = 0;
    double share() const {
        return total_flows == 0 ? 0.0 : static_cast<double>(slow_flows) / total_flows;
    }
    bool localized() const { return lanes.size() == 1; }
    /// The slow flows (indices into the observations) this suspect explains.
    std::vector<size_t> evidence;
};

struct Localization {
    std::vector<Suspect> suspects;  ///< in the order chosen: the strongest first
    /// Slow flows that no suspect explains (too few observations, or noise).
    std::vector<size_t> unexplained;
    /// Lanes crossed by unexplained slow flows that did not stand: too few
    /// slow flows, or too few flows to judge (need more tests).
    std::vector<Lane> undersampled;
    /// The lanes of the slow flows of suspects that rest on fewer than twice
    /// min_slow slow flows of their own (own_slow), or whose slow flows all
    /// but one crossed another lane too, the suspects' own lanes included:
    /// another lane on those paths may be what slowed them (need more tests).
    std::vector<Lane> contested;
};

Localization localize(const std::vector<FlowObservation>& flows, const LocalizeOptions& o = {});

/// The strength of a flow at `ratio` of the expected, slow below
/// `slow_ratio`: 1 when it failed (ratio 0) or lost packets, else how far
/// under the threshold it ran, (slow_ratio - ratio) / slow_ratio, at least 0.05.
double slow_strength(double ratio, double slow_ratio, bool lossy = false);

/// A cable named by what is wrong with it: both directions, or one.
struct CableVerdict {
    size_t link = 0;
    bool a_to_b = false;
    bool b_to_a = false;
};
/// Joins localized suspects by cable.
std::vector<CableVerdict> cables_of(const Localization& l);

/// Rounds of one-way tests that separate what `l` left open: for each
/// confounded suspect, flows through one of its lanes and none of the
/// others; for each undersampled or contested lane, more flows through it
/// (and none of the other suspects); and for each
/// lane in `uncrossed` (planned, but no measured flow crossed it: its flows
/// failed, or a rank they needed died), flows through it from the endpoints
/// given. Flows avoid the lanes of every other suspect, one test per
/// endpoint and no shared lane within a round. `per_lane` flows per lane
/// asked for, at most `max_rounds` rounds of at most `max_per_round` tests
/// (0: no limit).
std::vector<Round> separating_rounds(const Localization& l, const std::vector<Lane>& uncrossed,
                                     const std::vector<MeshEndpoint>& endpoints,
                                     const PathOracle& oracle, const Fabric& f, size_t per_lane = 2,
                                     size_t max_rounds = 2, size_t max_per_round = 0);

}  // namespace fabscope

namespace fabscope {

/// The loop of a fabric-wide test, without the traffic: run the planned
/// rounds, localize, and while suspects stay confounded or undersampled, run
/// separating rounds (up to max_adaptive_rounds in all), then localize again
/// over every flow measured.
struct AdaptiveOptions {
    LocalizeOptions localize;
    size_t max_adaptive_rounds = 6;
    size_t per_lane = 2;
};

/// Measures one round: `flows` come with their tests, endpoints and lanes;
/// the callee sets `slow` and `ratio` of each. Returns false to stop (an
/// interrupt): what was measured so far is kept and localized.
using MeasureRound = std::function<bool(const Round&, std::vector<FlowObservation>& flows)>;

struct MeshOutcome {
    std::vector<Round> rounds;  ///< as run, adaptive ones marked
    std::vector<FlowObservation> flows;
    Localization localization;
    bool complete = true;  ///< false when measure asked to stop
};

MeshOutcome run_and_localize(const Schedule& plan, const std::vector<MeshEndpoint>& endpoints,
                             const PathOracle& oracle, const Fabric& f, const MeasureRound& measure,
                             const AdaptiveOptions& o = {});

}  // namespace fabscope
