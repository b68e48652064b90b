#include "schedule/schedule_json.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "model/port_label.h"
#include "model/route.h"
#include "util/exit_status.h"
#include "util/input_file.h"

namespace fabscope {
namespace {

nlohmann::json port_json(const Fabric& f, PortRef r) {
    return to_json(port_label(f, r));
}

nlohmann::json flow_json(const Fabric& f, const std::vector<MeshEndpoint>& eps, size_t from,
                         size_t to, int variant, const PathOracle* oracle, bool paths) {
    nlohmann::json j{{"from", eps[from].name},
                     {"to", eps[to].name},
                     {"variant", variant},
                     {"dlid", eps[to].lid + variant}};
    if (!oracle || !paths) return j;
    FlowPath p = oracle->path(eps[from], eps[to], variant);
    if (!p.ok()) {
        j["error"] = p.error;
        return j;
    }
    nlohmann::json hops = nlohmann::json::array();
    for (Lane l : p.lanes) {
        const Link& link = f.links()[link_of_lane(l)];
        bool forward = (l & 1U) == 0;
        hops.push_back({{"from", port_json(f, forward ? link.a : link.b)},
                        {"to", port_json(f, forward ? link.b : link.a)}});
    }
    j["hops"] = std::move(hops);
    return j;
}

}  // namespace

nlohmann::json schedule_json(const Schedule& s, const std::vector<MeshEndpoint>& endpoints,
                             const Fabric& f, const PathOracle* oracle,
                             const ScheduleJsonOptions& o) {
    nlohmann::json eps = nlohmann::json::array();
    for (const MeshEndpoint& e : endpoints) {
        const Node* leaf = f.node(e.leaf);
        eps.push_back({{"name", e.name},
                       {"node_guid", format_guid(e.node)},
                       {"port", e.port},
                       {"lid", e.lid},
                       {"lmc", e.lmc},
                       {"leaf", leaf ? leaf->description : ""}});
    }
    nlohmann::json rounds = nlohmann::json::array();
    for (size_t i = 0; i < s.rounds.size(); ++i) {
        nlohmann::json tests = nlohmann::json::array();
        for (const PairTest& t : s.rounds[i].tests) {
            nlohmann::json flows = nlohmann::json::array();
            flows.push_back(flow_json(f, endpoints, t.a, t.b, t.variant_ab, oracle, o.paths));
            if (t.both_ways)
                flows.push_back(flow_json(f, endpoints, t.b, t.a, t.variant_ba, oracle, o.paths));
            tests.push_back({{"a", endpoints[t.a].name},
                             {"b", endpoints[t.b].name},
                             {"both_ways", t.both_ways},
                             {"flows", std::move(flows)}});
        }
        rounds.push_back(
            {{"round", i + 1}, {"adaptive", s.rounds[i].adaptive}, {"tests", std::move(tests)}});
    }
    nlohmann::json j{
        {"pattern", name(s.pattern)},
        {"endpoints", std::move(eps)},
        {"rounds", std::move(rounds)},
        {"flows", s.flows()},
        {"all_pairs_rounds",
         endpoints.size() < 2 ? size_t{0} : endpoints.size() - (endpoints.size() % 2 == 0)},
        {"unrouted", s.unrouted}};
    if (s.coverage) {
        j["coverage"] = {
            {"lanes", s.coverage->lanes},         {"crossed", s.coverage->crossed},
            {"fraction", s.coverage->fraction()}, {"endpoints", s.coverage->endpoints},
            {"senders", s.coverage->senders},     {"receivers", s.coverage->receivers}};
    }
    return j;
}

Result<size_t> find_endpoint(const std::string& key, const Fabric& f,
                             const std::vector<MeshEndpoint>& endpoints) {
    for (size_t i = 0; i < endpoints.size(); ++i) {
        if (endpoints[i].name == key) return i;
    }
    auto node = resolve_node(f, key);
    if (!node) return make_error(node.error().message, kExitUsage);
    for (size_t i = 0; i < endpoints.size(); ++i) {
        if (endpoints[i].node == (*node)->guid) return i;
    }
    return make_error(
        fmt::format("\"{}\" has no port that is up with a LID, so it cannot test", key),
        kExitUsage);
}

Result<std::vector<NamedPair>> read_pair_names(const std::string& path) {
    constexpr uint64_t kMaxBytes = 1 << 20;  // a pairs file holds one pair per line
    constexpr size_t kMaxPairs = 100000;
    constexpr size_t kMaxName = 256;
    auto text = read_text_file(path, kMaxBytes);
    if (!text) return text.error();
    std::istringstream in(*text);
    std::vector<NamedPair> out;
    std::string line;
    for (size_t n = 1; std::getline(in, line); ++n) {
        if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream words(line);
        NamedPair p{.line = n};
        std::string more;
        if (!(words >> p.a)) continue;
        if (!(words >> p.b) || (words >> more))
            return make_error(fmt::format("{}:{}: want two endpoints, \"SRC DST\"", path, n),
                              kExitUsage);
        if (p.a.size() > kMaxName || p.b.size() > kMaxName)
            return make_error(
                fmt::format("{}:{}: a name longer than {} characters", path, n, kMaxName),
                kExitUsage);
        if (p.a == p.b)
            return make_error(fmt::format("{}:{}: {} with itself", path, n, p.a), kExitUsage);
        if (out.size() == kMaxPairs)
            return make_error(fmt::format("{}: more than {} pairs", path, kMaxPairs), kExitUsage);
        out.push_back(std::move(p));
    }
    if (out.empty()) return make_error(fmt::format("{}: no pairs in the file", path), kExitUsage);
    return out;
}

Result<std::vector<std::pair<size_t, size_t>>> read_pairs_file(
    const std::string& path, const Fabric& f, const std::vector<MeshEndpoint>& endpoints) {
    auto names = read_pair_names(path);
    if (!names) return names.error();
    std::vector<std::pair<size_t, size_t>> out;
    for (const NamedPair& p : *names) {
        auto ia = find_endpoint(p.a, f, endpoints);
        if (!ia)
            return make_error(fmt::format("{}:{}: {}", path, p.line, ia.error().message),
                              kExitUsage);
        auto ib = find_endpoint(p.b, f, endpoints);
        if (!ib)
            return make_error(fmt::format("{}:{}: {}", path, p.line, ib.error().message),
                              kExitUsage);
        if (*ia == *ib)
            return make_error(fmt::format("{}:{}: {} with itself", path, p.line, p.a), kExitUsage);
        out.emplace_back(*ia, *ib);
    }
    return out;
}

}  // namespace fabscope
