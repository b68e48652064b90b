#pragma once
// What a JSON text will cost before it is parsed: how deep it nests and how
// many values, members and string bytes it holds, from one pass over the
// bytes that builds nothing. The loaders refuse a document nested deeper
// than they can walk (copies and dumps of a parsed value recurse) and one
// whose parsed form would not fit in memory, with a message naming the file,
// instead of a stack overflow or an out-of-memory abort.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fabscope::json_io {

/// Our documents nest about 8 deep; 64 leaves room and keeps recursion shallow.
inline constexpr size_t kMaxJsonDepth = 64;
/// The largest JSON file or stream we read (a 100,000-host snapshot is ~600 MiB
/// pretty-printed, ~250 MiB as fabscope writes it).
inline constexpr uint64_t kMaxJsonBytes = uint64_t{512} << 20;

struct JsonShape {
    size_t depth = 0;  ///< deepest nesting seen (capped at the limit + 1)
    /// Byte offset of the bracket that went past the depth limit, if any.
    size_t too_deep_at = SIZE_MAX;
    uint64_t containers = 0;  ///< objects and arrays
    uint64_t members = 0;     ///< object members (key: value)
    uint64_t scalars = 0;     ///< strings (keys included), numbers, literals
    uint64_t string_bytes = 0;

    bool too_deep() const { return too_deep_at != SIZE_MAX; }
    /// Bytes the parsed document will take in memory (nlohmann::json with
    /// JSON_DIAGNOSTICS, on a 64-bit system); an estimate, on the high side.
    uint64_t parsed_bytes() const;
};

/// Scans `text` up to the first place it nests deeper than `max_depth`.
/// Syntax is not checked here: the parser that follows reports it.
JsonShape scan_json(std::string_view text, size_t max_depth = kMaxJsonDepth);

}  // namespace fabscope::json_io
