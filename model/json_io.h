#pragma once
// Reading and writing our JSON documents (snapshots, plans, thresholds,
// reports) with errors a person can act on: the file, and the JSON path of
// the bad value ("/nodes/3/ports/2/lid: must be an unsigned integer").

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "model/fabric.h"
#include "model/link_rate.h"
#include "util/input_file.h"
#include "util/result.h"

namespace fabscope::json_io {

using nlohmann::json;

/// Reads and parses a JSON file ("-" = stdin). Errors: cannot open, larger
/// than kMaxJsonBytes, empty, truncated, invalid JSON with line and column,
/// nested deeper than kMaxJsonDepth, more than the memory left can hold, each
/// naming the file, with code 2 (see json_shape.h).
Result<json> read_json_file(const std::string& path);
/// Reads the JSON file `path` and converts it with `convert`; an error from
/// the conversion comes back as "path: message" with code 2, as a read error does.
template <class T>
Result<T> load_file(const std::string& path, Result<T> (*convert)(const json&));
/// Parses JSON from anywhere (a file, a peer's message) under the same limits
/// as read_json_file; every error starts with `origin`. Use it for every JSON
/// we did not write ourselves in this process.
Result<json> parse_json_text(const std::string& text, const std::string& origin);

/// Writes pretty JSON atomically (temporary file, then rename); "-" = stdout.
Status write_json_file(const json& j, const std::string& path);
/// Writes whatever `write` puts on the stream to `path` atomically; "-" = stdout.
/// util/output_file.h's rules: a random temporary beside the target, only a
/// regular file (or one a symlink points at) replaced, its mode kept.
Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write);

/// Throws a JSON error that carries the path of `at`.
[[noreturn]] void fail(const json& at, const std::string& message);

std::string strip_exception_prefix(std::string_view what);

/// Runs `fn`; a JSON exception thrown inside becomes an Error whose message is
/// "<path>: <what is wrong>".
template <class Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
    try {
        return fn();
    } catch (const json::exception& e) {
        return make_error(strip_exception_prefix(e.what()));
    }
}

Error in_file(const std::string& path, const Error& e);

/// Frees a parsed document leaves first, allocating nothing. nlohmann's own
/// destructor flattens the tree into a vector first: for 30 million numbers
/// in one array that is 1.3 GiB more at the end of a load, and an abort
/// when it is not there (json_census.h).
void release(json& j) noexcept;

template <class T>
Result<T> load_file(const std::string& path, Result<T> (*convert)(const json&)) {
    try {
        auto doc = read_json_file(path);
        if (!doc) return doc.error();
        auto r = convert(*doc);
        release(*doc);
        if (!r) return in_file(path, r.error());
        return r;
    } catch (const std::bad_alloc&) {
        // Input too large for this machine is a problem with the input.
        return out_of_memory(path);
    }
}

const json& get(const json& j, const char* key);
const json& get_object(const json& j, const char* key);
const json& get_array(const json& j, const char* key);
std::string get_string(const json& j, const char* key);
std::string get_string(const json& j, const char* key, const std::string& dflt);
/// A string of at most `max` bytes, the size of the field it fills (a
/// NodeDescription is 64 bytes); a longer one names its JSON path.
std::string get_string_at_most(const json& j, const char* key, size_t max);
std::string get_string_at_most(const json& j, const char* key, size_t max, const std::string& dflt);
bool get_bool(const json& j, const char* key, bool dflt);
double get_double(const json& j, const char* key, double dflt);
double get_double(const json& j, const char* key);
/// A GUID written as "0x..." hex string.
Guid get_guid(const json& j, const char* key);
Guid get_guid(const json& j, const char* key, Guid dflt);
/// A number or a "0x..." hex string, at most `max`.
uint64_t get_hex(const json& j, const char* key, uint64_t dflt,
                 uint64_t max = std::numeric_limits<uint64_t>::max());

uint64_t get_uint_checked(const json& j, const char* key, uint64_t max);
/// An unsigned integer in min..max; "7 is out of range (8..15)" otherwise.
uint64_t get_uint_between(const json& j, const char* key, uint64_t min, uint64_t max);
template <class T>
T get_uint(const json& j, const char* key) {
    return static_cast<T>(get_uint_checked(j, key, std::numeric_limits<T>::max()));
}
template <class T>
T get_uint(const json& j, const char* key, T dflt) {
    return j.contains(key) ? get_uint<T>(j, key) : dflt;
}

/// Enum values by name; specialised in json_io.cpp for every enum we store.
template <class E>
std::optional<E> parse_enum_name(std::string_view s);
template <class E>
std::string_view enum_choices();

#define FABSCOPE_JSON_ENUM(E)                                \
    template <>                                              \
    std::optional<E> parse_enum_name<E>(std::string_view s); \
    template <>                                              \
    std::string_view enum_choices<E>();
FABSCOPE_JSON_ENUM(NodeType)
FABSCOPE_JSON_ENUM(PortState)
FABSCOPE_JSON_ENUM(PhysState)
FABSCOPE_JSON_ENUM(Width)
FABSCOPE_JSON_ENUM(Speed)
FABSCOPE_JSON_ENUM(SmState)
#undef FABSCOPE_JSON_ENUM

template <class E>
E enum_from(const json& v) {
    if (!v.is_string()) fail(v, fmt::format("must be one of {}", enum_choices<E>()));
    auto e = parse_enum_name<E>(v.get_ref<const std::string&>());
    if (!e)
        fail(v, fmt::format("\"{}\" is not one of {}", v.get_ref<const std::string&>(),
                            enum_choices<E>()));
    return *e;
}
template <class E>
E get_enum(const json& j, const char* key) {
    return enum_from<E>(get(j, key));
}
template <class E>
std::optional<E> get_optional_enum(const json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return enum_from<E>(j.at(key));
}
template <class Set, class E>
Set get_set(const json& j, const char* key) {
    Set s;
    for (const json& v : get_array(j, key)) s.insert(enum_from<E>(v));
    return s;
}

}  // namespace fabscope::json_io
