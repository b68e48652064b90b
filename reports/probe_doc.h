#pragma once
// A probe agent's /probe.json (docs/probe.schema.json) as the TUI and the
// reports read it: the agent, its peers' window figures and its findings.
// Bounded on load as every input: at most 16,384 peers and 1,024 findings.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope {

struct ProbePeerDoc {
    std::string name;
    std::string leaf;
    std::string state;
    uint64_t sent = 0;
    uint64_t answered = 0;
    uint64_t lost = 0;
    double loss_ratio = 0;
    std::optional<double> p50_us;
    std::optional<double> p99_us;
    std::optional<double> baseline_p99_us;
};

struct ProbeFindingDoc {
    std::string kind;
    std::string severity;
    std::string summary;
};

struct ProbeDoc {
    std::string host;
    std::string leaf;
    uint64_t interval = 0;
    double interval_s = 0;
    uint32_t window = 0;
    std::vector<ProbePeerDoc> peers;
    std::vector<ProbeFindingDoc> findings;
};

/// Whether `j` is what a probe agent serves.
bool looks_like_probe(const nlohmann::json& j);
/// Errors name the JSON path (the caller adds the file or the agent).
Result<ProbeDoc> probe_doc_from_json(const nlohmann::json& j);

}  // namespace fabscope
