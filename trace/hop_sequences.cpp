#include "trace/hop_sequences.h"

#include <stdexcept>

namespace fabscope::perf {

HopSequences::Id HopSequences::intern(const std::vector<TraceHop>& hops) {
    if (hops.empty()) return kEmpty;
    std::string key;
    for (const TraceHop& h : hops) {
        key += std::to_string(h.ttl);
        key += '\0';
        key += h.address;
        key += '\0';
        key += h.name;
        key += '\0';
    }
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    if (seqs_.size() >= UINT32_MAX) throw std::length_error("more than 4 billion traced paths");
    const auto id = static_cast<Id>(seqs_.size());
    seqs_.push_back(hops);
    index_.emplace(std::move(key), id);
    return id;
}

}  // namespace fabscope::perf
