#include "mesh/pair_up.h"

#include <fmt/format.h>

#include <exception>
#include <nlohmann/json.hpp>

#include "ranks/protocol.h"

namespace fabscope::perf {
namespace {
using json = nlohmann::json;
}  // namespace

PairUp pair_up(MeshComm& comm, const VerbsDevice& dev, const EndpointConfig& cfg,
               const std::vector<MeshRank>& ranks, int partner, PairUpTags tags,
               MeshDeadline deadline, Millis waited, uint8_t path_bits) {
    PairUp p;
    auto ep = dev.create_endpoint(cfg);
    json mine =
        ep ? json{{"info", info_to_json((*ep)->info())}} : json{{"error", ep.error().message}};
    auto silent = [&] {
        p.partner_silent = true;
        p.error = fmt::format("{} did not answer within {}", who(ranks, partner),
                              format_duration(waited));
        return std::move(p);
    };
    auto theirs = parse_message(comm.exchange(partner, tags.info, mine.dump(), deadline));
    if (!theirs) return silent();
    if (!ep) {
        p.error = "creating the QP failed: " + ep.error().message;
    } else if (!theirs->contains("info")) {
        p.error = fmt::format("{} could not create its QP: {}", who(ranks, partner),
                              theirs->value("error", "no reason given"));
    } else {
        try {
            p.remote = info_from_json((*theirs)["info"]);
            // LMC: one of the partner's LIDs, which the SM may route another way.
            p.remote.lid = static_cast<uint16_t>(p.remote.lid + path_bits);
            if (auto c = (*ep)->connect(p.remote); !c)
                p.error = "connecting the QP failed: " + c.error().message;
        } catch (const std::exception& e) {
            p.error = fmt::format("{} sent bad endpoint info: {}", who(ranks, partner), e.what());
        }
    }
    // Both sides connected before either sends: a WRITE to a QP not yet
    // ready to receive is dropped and retried until the QP gives up.
    json ready = {{"ok", p.error.empty()}};
    auto their_ready = parse_message(comm.exchange(partner, tags.ready, ready.dump(), deadline));
    if (!their_ready) return silent();
    if (p.error.empty() && !their_ready->value("ok", false))
        p.error = fmt::format("{} could not connect its QP", who(ranks, partner));
    if (p.error.empty()) p.ep = std::move(*ep);
    return p;
}

}  // namespace fabscope::perf
