#pragma once
// PackedJson: a JSON value kept as its CBOR bytes, in 16 bytes and one
// allocation (none for null), where nlohmann::json keeps an object as a tree
// of nodes. For values held by the million and read seldom: rank 0 of a
// 4,096-rank all-pairs run holds 16.8 million flows, and each flow's counters
// cost about 850 bytes as a json object (measured by bench/mesh_rank0_bench).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>

namespace fabscope {

class PackedJson {
  public:
    PackedJson() = default;
    explicit PackedJson(const nlohmann::json& j) { assign(j); }
    PackedJson(const PackedJson& o);
    PackedJson(PackedJson&&) noexcept = default;
    ~PackedJson() = default;
    PackedJson& operator=(const PackedJson& o);
    PackedJson& operator=(PackedJson&&) noexcept = default;
    PackedJson& operator=(const nlohmann::json& j) {
        assign(j);
        return *this;
    }

    /// The value, as it was given (null when nothing was).
    [[nodiscard]] nlohmann::json unpack() const;
    [[nodiscard]] bool is_null() const { return size_ == 0; }
    /// The bytes it takes on the heap.
    [[nodiscard]] size_t packed_size() const { return size_; }

  private:
    void assign(const nlohmann::json& j);

    std::unique_ptr<uint8_t[]> bytes_;  // NOLINT(modernize-avoid-c-arrays): sized once
    uint32_t size_ = 0;
};

}  // namespace fabscope
