#pragma once
// NameTable: strings that repeat across many records kept once, each record
// holding a 16-bit index (0 is the empty name). A mesh run's flows name the
// device at each end ("mlx5_0/1"), the same few names millions of times.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fabscope {

class NameTable {
  public:
    using Id = uint16_t;
    static constexpr size_t kMaxNames = UINT16_MAX;

    /// The name's index, added if new. Past kMaxNames distinct names (only
    /// a peer sending a new name each time gets there) a new one is 0: empty.
    Id intern(std::string_view name) {
        if (name.empty()) return 0;
        if (names_.empty()) names_.emplace_back();
        std::string key(name);
        if (auto it = index_.find(key); it != index_.end()) return it->second;
        if (names_.size() >= kMaxNames) return 0;
        const auto id = static_cast<Id>(names_.size());
        names_.push_back(key);
        index_.emplace(std::move(key), id);
        return id;
    }
    [[nodiscard]] const std::string& name(Id id) const {
        static const std::string kEmpty;
        return id < names_.size() ? names_[id] : kEmpty;
    }
    [[nodiscard]] size_t size() const { return names_.empty() ? 0 : names_.size() - 1; }

  private:
    std::vector<std::string> names_;  // [0] is ""
    std::unordered_map<std::string, Id> index_;
};

}  // namespace fabscope
