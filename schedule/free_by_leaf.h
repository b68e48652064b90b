#pragma once
// Endpoints grouped by the leaf they are cabled to, with the ones a round has
// already used taken out in O(1): the candidates of a round's next pair.
// Inside schedule/ only.

#include <cstddef>
#include <map>
#include <vector>

#include "model/paths.h"

namespace fabscope {

/// Endpoints grouped by leaf, with O(1) removal of the ones a round has used.
class FreeByLeaf {
  public:
    explicit FreeByLeaf(const std::vector<MeshEndpoint>& endpoints) : leaf_of_(endpoints.size()) {
        std::map<Guid, size_t> index;
        for (size_t i = 0; i < endpoints.size(); ++i) {
            auto [it, fresh] = index.try_emplace(endpoints[i].leaf, groups_.size());
            if (fresh) groups_.emplace_back();
            leaf_of_[i] = it->second;
            groups_[it->second].push_back(i);
        }
        members_ = groups_;
        pos_.resize(endpoints.size());
    }
    void reset() {
        free_ = members_;
        for (const auto& g : free_) {
            for (size_t k = 0; k < g.size(); ++k) pos_[g[k]] = k;
        }
    }
    void take(size_t e) {
        auto& g = free_[leaf_of_[e]];
        size_t k = pos_[e];
        g[k] = g.back();
        pos_[g[k]] = k;
        g.pop_back();
    }
    size_t leaves() const { return groups_.size(); }
    size_t leaf_of(size_t e) const { return leaf_of_[e]; }
    const std::vector<size_t>& free_in(size_t leaf) const { return free_[leaf]; }
    const std::vector<std::vector<size_t>>& groups() const { return groups_; }

  private:
    std::vector<std::vector<size_t>> groups_;
    std::vector<std::vector<size_t>> members_;
    std::vector<std::vector<size_t>> free_;
    std::vector<size_t> leaf_of_;
    std::vector<size_t> pos_;
};

}  // namespace fabscope
