#pragma once
// Two ranks connect an RC QP between them over the ranks' messages, the same
// in every pattern (a round's pair, an incast's receiver and each peer): each
// creates its endpoint and they exchange the endpoint infos, each connects,
// and then both say whether they are ready, since a WRITE to a QP not yet
// ready to receive is dropped and retried until the QP gives up. A partner
// that does not answer by the deadline is silent: the caller's finding.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ranks/comm.h"
#include "ranks/rank.h"
#include "rdma/verbs_device.h"
#include "util/duration.h"

namespace fabscope::perf {

struct PairUp {
    std::unique_ptr<TestEndpoint> ep;  ///< connected on both sides; null on error
    EndpointInfo remote;
    std::string error;
    bool partner_silent = false;
};

struct PairUpTags {
    int info = 0;
    int ready = 0;
};

/// Connects this rank's endpoint of `cfg` to `partner`'s by `deadline`
/// (`waited` from now, for the error). `path_bits` (InfiniBand, LMC > 0)
/// are added to the partner's LID, which the subnet manager may route
/// another way.
PairUp pair_up(MeshComm& comm, const VerbsDevice& dev, const EndpointConfig& cfg,
               const std::vector<MeshRank>& ranks, int partner, PairUpTags tags,
               MeshDeadline deadline, Millis waited, uint8_t path_bits = 0);

}  // namespace fabscope::perf
