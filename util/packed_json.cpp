#include "util/packed_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace fabscope {

PackedJson::PackedJson(const PackedJson& o) : size_(o.size_) {
    if (size_ == 0) return;
    bytes_ = std::make_unique<uint8_t[]>(size_);  // NOLINT(modernize-avoid-c-arrays)
    std::copy_n(o.bytes_.get(), size_, bytes_.get());
}

PackedJson& PackedJson::operator=(const PackedJson& o) {
    if (this != &o) *this = PackedJson(o);
    return *this;
}

void PackedJson::assign(const nlohmann::json& j) {
    bytes_.reset();
    size_ = 0;
    if (j.is_null()) return;
    const std::vector<uint8_t> cbor = nlohmann::json::to_cbor(j);
    if (cbor.size() > UINT32_MAX) throw std::length_error("a JSON value of 4 GiB or more");
    size_ = static_cast<uint32_t>(cbor.size());
    bytes_ = std::make_unique<uint8_t[]>(size_);  // NOLINT(modernize-avoid-c-arrays)
    std::copy(cbor.begin(), cbor.end(), bytes_.get());
}

nlohmann::json PackedJson::unpack() const {
    if (size_ == 0) return nullptr;
    return nlohmann::json::from_cbor(bytes_.get(), bytes_.get() + size_);
}

}  // namespace fabscope
