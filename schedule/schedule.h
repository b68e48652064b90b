#pragma once
// The pair scheduler: which endpoints test with which, round by round. Pure:
// endpoints and paths in, rounds out; nothing here sends traffic, so any
// schedule can be printed (a dry run) and checked on a fabric without a data
// path.
//
// Within a round an endpoint is in at most one test (a NIC measuring two
// peers at once measures neither), and for `cover` no two flows share a lane,
// so one slow flow implicates only its own cables.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/paths.h"
#include "util/result.h"

namespace fabscope {

/// Ring: each endpoint sends to the next of its plane's ring, one way, in
/// one round (a ring all-reduce's edges: mesh/ring_plan.h plans it).
enum class Pattern { AllPairs, Cover, Leaf, Incast, Pairs, Ring };
std::string_view name(Pattern p);
std::optional<Pattern> parse_pattern(std::string_view s);

/// One test between two endpoints (indices into the endpoint list). With
/// `both_ways`, a then b each send to the other (two flows); otherwise a
/// sends to b only. The variants choose the destination LID (IB, LMC) or
/// flow label (RoCE) of each direction.
struct PairTest {
    size_t a = 0;
    size_t b = 0;
    int variant_ab = 0;
    int variant_ba = 0;
    bool both_ways = true;
};

struct Round {
    std::vector<PairTest> tests;
    /// Added after a first pass to separate suspects.
    bool adaptive = false;
};

struct Coverage {
    size_t lanes = 0;    ///< switch-to-switch lanes in the fabric
    size_t crossed = 0;  ///< of those, crossed by at least one flow
    /// The endpoints planned over, and of them those that send, and those
    /// that receive, in at least one flow: a host's own cable both ways.
    size_t endpoints = 0;
    size_t senders = 0;
    size_t receivers = 0;
    double fraction() const { return lanes == 0 ? 1.0 : static_cast<double>(crossed) / lanes; }
};

struct Schedule {
    Pattern pattern = Pattern::AllPairs;
    std::vector<Round> rounds;
    /// Endpoint pairs the pattern wanted but no path is known for, with why.
    std::vector<std::string> unrouted;
    std::optional<Coverage> coverage;  ///< set when paths are known
    size_t flows() const;
};

/// Every endpoint with every other: the round-robin (circle) method, N-1
/// rounds for even N, N rounds with one endpoint resting per round for odd N.
Schedule all_pairs(size_t n);

/// All pairs among the endpoints under each leaf, every leaf at once.
Schedule leaf_pairs(const std::vector<MeshEndpoint>& endpoints);

/// K senders to one receiver in one round, one-way: the senders are the K
/// endpoints after the receiver, taken from other leaves first, so the flows
/// meet at the receiver's leaf and cable.
Result<Schedule> incast(const std::vector<MeshEndpoint>& endpoints, size_t receiver, size_t k);

/// Explicit pairs (indices), packed into as few rounds as keep every
/// endpoint in one test per round, in the order given.
Schedule explicit_pairs(size_t n, const std::vector<std::pair<size_t, size_t>>& pairs);

/// Pairs that cross every switch-to-switch lane of the fabric at least once
/// and test every endpoint sending and receiving (a host's cable is a cable
/// too), no two flows of a round on one lane, in few rounds: endpoints whose
/// flows cannot fit beside the round's cross-leaf flows are paired under their
/// own leaf, where they cross no switch-to-switch lane. Stops at `max_rounds`
/// or when everything that can be reached is tested; endpoints left idle in
/// a round are paired where their flows fit, so lanes are crossed more than
/// once and a slow flow has company to be compared with. With `passes` > 1,
/// once everything is tested it is all wanted again, with other pairs, until
/// every lane was crossed and every endpoint tested that many times (or
/// `max_rounds`): a lane at 0.7 of its rate under +-20 % noise lets one flow
/// in seven through over a threshold of 0.8, and three flows judged together
/// say what one cannot. The coverage is the first pass's.
Schedule cover(const std::vector<MeshEndpoint>& endpoints, const PathOracle& oracle,
               const std::vector<Lane>& lanes, size_t max_rounds = 8, size_t passes = 1);

/// The lanes of every flow of a test, a to b first.
struct TestFlows {
    FlowPath ab;
    FlowPath ba;
};
TestFlows flows_of(const PairTest& t, const std::vector<MeshEndpoint>& endpoints,
                   const PathOracle& oracle);

/// How many of `lanes` the schedule crosses, and how many endpoints it has
/// sending and receiving.
Coverage coverage_of(const Schedule& s, const std::vector<MeshEndpoint>& endpoints,
                     const PathOracle& oracle, const std::vector<Lane>& lanes);

/// Checks the promises of a round: each endpoint once, and (when `disjoint`)
/// no lane shared by two flows. Returns what is broken, empty when none is.
std::string check_round(const Round& r, const std::vector<MeshEndpoint>& endpoints,
                        const PathOracle* oracle, bool disjoint);

}  // namespace fabscope
