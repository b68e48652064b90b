#include "util/json_census.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "util/exit_status.h"

namespace fabscope::json_io {
namespace {

using nlohmann::json;

// std::string keeps up to 15 bytes inline; a longer one owns a heap block.
constexpr uint64_t kInlineString = 15;

/// What glibc's malloc takes for a block of `n` bytes: 8 bytes of header,
/// rounded up to 16, at least 32.
uint64_t malloc_chunk(uint64_t n) {
    return std::max<uint64_t>(32, (n + 8 + 15) / 16 * 16);
}

uint64_t string_heap(uint64_t len) {
    return len > kInlineString ? malloc_chunk(len + 1) : 0;
}

// One open object or array, with the keys seen so far in an object: the
// only memory this pass holds, besides the parser's own token buffer.
struct OpenValue {
    bool object = false;
    uint64_t count = 0;
    std::string key;  // the current member's
    std::unordered_set<std::string> keys;
};

std::string escape_pointer(std::string_view key) {
    std::string out;
    for (char c : key.substr(0, 64)) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

class CensusSax {
  public:
    using number_integer_t = json::number_integer_t;
    using number_unsigned_t = json::number_unsigned_t;
    using number_float_t = json::number_float_t;
    using string_t = json::string_t;
    using binary_t = json::binary_t;

    JsonCensus census;
    std::string error;  ///< set when this pass refused the document

    bool null() { return value(); }
    bool boolean(bool /*unused*/) { return value(); }
    bool number_integer(number_integer_t /*unused*/) { return value(); }
    bool number_unsigned(number_unsigned_t /*unused*/) { return value(); }
    bool number_float(number_float_t /*unused*/, const string_t& /*unused*/) { return value(); }
    bool binary(binary_t& /*unused*/) { return value(); }
    bool string(string_t& s) {
        if (!value() || !short_enough(s)) return false;
        ++census.strings;
        census.string_heap += malloc_chunk(sizeof(std::string)) + string_heap(s.size());
        return true;
    }
    bool start_object(std::size_t /*unused*/) {
        if (!value()) return false;
        ++census.objects;
        stack_.push_back(OpenValue{true, 0, {}, {}});
        return true;
    }
    bool key(string_t& k) {
        OpenValue& f = stack_.back();
        f.key = k.substr(0, 256);
        if (!short_enough(k)) return false;
        if (!f.keys.insert(k).second) {
            error = fmt::format(
                "{}: duplicate key \"{}\" (JSON keeps one of them silently: say "
                "it once)",
                path(), escape_pointer(k));
            return false;
        }
        ++census.members;
        ++f.count;
        census.string_heap += string_heap(k.size());
        return true;
    }
    bool end_object() {
        census.largest_container = std::max(census.largest_container, stack_.back().count);
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t /*unused*/) {
        if (!value()) return false;
        ++census.arrays;
        stack_.push_back(OpenValue{false, 0, {}, {}});
        return true;
    }
    bool end_array() {
        // A vector grown one element at a time doubles: its capacity is the
        // next power of two.
        census.array_slots += std::bit_ceil(stack_.back().count);
        census.largest_container = std::max(census.largest_container, stack_.back().count);
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                     const nlohmann::detail::exception& /*unused*/) {
        return false;
    }

  private:
    std::vector<OpenValue> stack_;

    bool value() {
        if (!stack_.empty() && !stack_.back().object) ++stack_.back().count;
        return true;
    }
    bool short_enough(const std::string& s) {
        if (s.size() <= kMaxJsonString) return true;
        error = fmt::format("{}: a string of {} bytes, more than the {} fabscope reads in one",
                            path(), s.size(), kMaxJsonString);
        return false;
    }
    /// The JSON pointer of the value being read ("/nodes/3/description").
    std::string path() const {
        std::string p;
        for (const OpenValue& f : stack_) {
            p += "/";
            p += f.object ? escape_pointer(f.key) : std::to_string(f.count == 0 ? 0 : f.count - 1);
        }
        return p.empty() ? "/" : p;
    }
};

}  // namespace

uint64_t JsonCensus::parsed_bytes() const {
    // Each value is a basic_json of 24 bytes (JSON_DIAGNOSTICS adds its
    // parent pointer) in an array's vector or an object's map node; numbers,
    // literals and short strings live there. An object owns a std::map (48
    // bytes) and a node per member (rb-tree links, key, value: 88 bytes); an
    // array a std::vector (24 bytes) and its buffer; a string a std::string
    // (32 bytes).
    //
    // The peak is not the parse but the free: nlohmann's destructor (3.11)
    // flattens the tree into a vector it grows by doubling from the root's
    // size, so the largest container's values are moved once more into a
    // buffer of up to twice their number, with the buffer it outgrew still
    // held: up to three times the container again, and a std::bad_alloc
    // there, in a destructor, is an abort. A 60 MB file of 30 million
    // numbers took 0.8 GiB parsed and 2.1 GiB resident while freed (more in
    // address space: untouched pages count under ulimit -v).
    constexpr uint64_t kValue = 24;
    const uint64_t maps = objects * malloc_chunk(48) + members * malloc_chunk(32 + 32 + kValue);
    const uint64_t vectors = arrays * malloc_chunk(24) + array_slots * kValue;
    const uint64_t freeing = 3 * largest_container * kValue;
    return maps + vectors + string_heap + freeing;
}

Result<JsonCensus> census_json(std::string_view text, const std::string& origin) {
    CensusSax sax;
    try {
        json::sax_parse(text.begin(), text.end(), &sax);
    } catch (const json::exception&) {
        // A number beyond a double and the like: the parser after says it.
        return sax.census;
    }
    if (!sax.error.empty()) return make_error(fmt::format("{}: {}", origin, sax.error), kExitUsage);
    return sax.census;
}

}  // namespace fabscope::json_io
