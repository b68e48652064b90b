#include "util/json_shape.h"

#include <algorithm>

namespace fabscope::json_io {

uint64_t JsonShape::parsed_bytes() const {
    // One basic_json (24 bytes with its parent pointer) per value, in a vector
    // slot that may be up to twice the size needed; an object member is a map
    // node (~112 bytes with its key and the allocator's overhead); an object
    // or array owns one more allocation; long strings own their bytes.
    constexpr uint64_t kPerValue = 48;
    constexpr uint64_t kPerMember = 112;
    constexpr uint64_t kPerContainer = 64;
    uint64_t values = containers + scalars - std::min(members, scalars);  // keys are no values
    return values * kPerValue + members * kPerMember + containers * kPerContainer + string_bytes;
}

JsonShape scan_json(std::string_view text, size_t max_depth) {
    JsonShape s;
    size_t depth = 0;
    bool in_token = false;  // inside a number or a literal
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '"') {
            ++s.scalars;
            in_token = false;
            size_t start = ++i;
            while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
            s.string_bytes += (i < text.size() ? i : text.size()) - start;
            continue;
        }
        switch (c) {
            case '{':
            case '[':
                ++s.containers;
                if (++depth > s.depth) s.depth = depth;
                if (depth > max_depth) {
                    s.too_deep_at = i;
                    return s;
                }
                in_token = false;
                break;
            case '}':
            case ']':
                if (depth > 0) --depth;
                in_token = false;
                break;
            case ':':
                ++s.members;
                in_token = false;
                break;
            case ',':
            case ' ':
            case '\t':
            case '\r':
            case '\n': in_token = false; break;
            default:
                if (!in_token) ++s.scalars;
                in_token = true;
        }
    }
    return s;
}

}  // namespace fabscope::json_io
