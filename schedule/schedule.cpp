#include "schedule/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "schedule/free_by_leaf.h"

namespace fabscope {
namespace {

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
        case Pattern::Ring: return "ring";
    }
    return "?";
}

std::optional<Pattern> parse_pattern(std::string_view s) {
    for (Pattern p : {Pattern::AllPairs, Pattern::Cover, Pattern::Leaf, Pattern::Incast,
                      Pattern::Pairs, Pattern::Ring}) {
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

Coverage coverage_of(const Schedule& s, const std::vector<MeshEndpoint>& endpoints,
                     const PathOracle& oracle, const std::vector<Lane>& lanes) {
    std::unordered_map<Lane, bool> crossed;
    for (Lane l : lanes) crossed.emplace(l, false);
    std::vector<char> sent(endpoints.size(), 0);
    std::vector<char> received(endpoints.size(), 0);
    for (const Round& r : s.rounds) {
        for (const PairTest& t : r.tests) {
            TestFlows f = flows_of(t, endpoints, oracle);
            for (const FlowPath* p : {&f.ab, &f.ba}) {
                for (Lane l : p->lanes) {
                    auto it = crossed.find(l);
                    if (it != crossed.end()) it->second = true;
                }
            }
            sent[t.a] = received[t.b] = 1;
            if (t.both_ways) sent[t.b] = received[t.a] = 1;
        }
    }
    Coverage c;
    c.lanes = lanes.size();
    for (const auto& [_, yes] : crossed) c.crossed += yes ? 1 : 0;
    c.endpoints = endpoints.size();
    c.senders = static_cast<size_t>(std::count(sent.begin(), sent.end(), 1));
    c.receivers = static_cast<size_t>(std::count(received.begin(), received.end(), 1));
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
