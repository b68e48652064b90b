#pragma once
// A JSON text read once without building it (nlohmann's SAX interface), to
// learn what its parsed form will cost and to refuse what the parser would
// take silently: a key given twice in one object (nlohmann keeps the last),
// a string longer than any field of ours. The estimate follows the parser's
// own allocations, measured (see parsed_bytes), so a file that cannot fit is
// refused before the parser starts instead of ending in std::bad_alloc.

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace fabscope::json_io {

/// No string of ours comes near it; a longer one is refused before it is copied.
inline constexpr uint64_t kMaxJsonString = uint64_t{1} << 20;

struct JsonCensus {
    uint64_t objects = 0;
    uint64_t arrays = 0;
    uint64_t members = 0;      ///< key: value pairs, over every object
    uint64_t strings = 0;      ///< string values (keys are members)
    uint64_t string_heap = 0;  ///< bytes of strings and keys too long to be kept inline
    uint64_t array_slots = 0;  ///< over every array: the capacity its vector grows to
    /// Elements of the largest array, or members of the largest object.
    uint64_t largest_container = 0;

    /// Bytes the parsed document takes at its peak, as nlohmann::json (with
    /// JSON_DIAGNOSTICS, glibc malloc, 64-bit) builds it and frees it.
    uint64_t parsed_bytes() const;
};

/// Reads `text` with the SAX parser. Errors (code 2) start with `origin`: a
/// duplicate key or an over-long string with its JSON path; a syntax error
/// is left to the parser that follows (it says where, as the callers want).
Result<JsonCensus> census_json(std::string_view text, const std::string& origin);

}  // namespace fabscope::json_io
