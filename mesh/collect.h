#pragma once
// Rank 0's record of a mesh run's steps: each rank's report (its flow, its
// device's counters around its part, a partner that did not answer) goes to
// the flow it is about, and once both ends have reported, the congestion
// detectors run over the flow's counters. Pure: reports in, MeshRunData out.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "mesh/run_data.h"
#include "model/thresholds.h"
#include "ranks/comm.h"

namespace fabscope::perf {

class StepCollector {
  public:
    StepCollector(MeshRunData& d, const RoceLimits& limits) : d_(d), limits_(limits) {}

    /// Whether the ranks still missing will not come: each one's partner
    /// has already said it is silent.
    static bool all_missing_vouched(const MeshComm::Messages& got, const std::vector<char>& skip);
    /// One rank's report of `round`: its flow, its counters around its
    /// part, a partner that did not answer.
    void absorb(size_t round, int r, const nlohmann::json& j);
    /// The congestion detectors over every flow of the round both ends (or
    /// the one left) have reported on; each finding is also the run's.
    void detect(size_t round);

  private:
    /// The flows of `round`: d.flows holds them round by round (add_flows
    /// appends each round's after those of the rounds before), so a binary
    /// search finds them. Rank 0 of a 4,096-rank all-pairs run looks a flow
    /// up for each of 8,192 reports a round, among 16.8 million flows.
    std::span<MeshFlow> round_flows(size_t round);
    /// The first flow of `round` from rank `src` (to `dst`): looked up in
    /// an index of the round's flows by rank, made when the round changes.
    MeshFlow* flow(size_t round, int src);
    MeshFlow* flow_to(size_t round, int dst);
    void index_round(size_t round);
    /// One end's counters around its part of a flow: the sender's ("tx") or
    /// the receiver's ("rx"). A side that sent something malformed is left out.
    void counted(size_t round, int r, const std::string& side, const nlohmann::json& j);
    void note_silent(size_t round, int r, const nlohmann::json& j);
    void record(size_t round, int src, const nlohmann::json& j);

    MeshRunData& d_;
    RoceLimits limits_;
    static constexpr size_t kNone = SIZE_MAX;
    bool indexed_ = false;
    size_t indexed_round_ = 0;
    size_t indexed_flows_ = 0;    ///< flows held when indexed (the adaptive pass adds some)
    std::vector<size_t> by_src_;  ///< rank -> index in d.flows, kNone
    std::vector<size_t> by_dst_;
};

}  // namespace fabscope::perf
