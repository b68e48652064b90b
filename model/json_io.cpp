#include "model/json_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "util/exit_status.h"
#include "util/input_file.h"
#include "util/json_census.h"
#include "util/json_shape.h"
#include "util/memory.h"
#include "util/output_file.h"

namespace fabscope::json_io {

namespace {

// Line and column (1-based) of a byte offset, for parse errors.
std::pair<size_t, size_t> line_col(const std::string& text, size_t byte) {
    size_t line = 1;
    size_t col = 1;
    for (size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

template <class E, size_t N>
std::optional<E> by_name(std::string_view s, const E (&values)[N]) {
    for (E e : values) {
        if (name(e) == s) return e;
    }
    return std::nullopt;
}

template <class E, size_t N>
std::string choices(const E (&values)[N]) {
    std::string out;
    for (E e : values) {
        out += out.empty() ? "" : ", ";
        out += name(e);
    }
    return out;
}

constexpr NodeType kNodeTypes[] = {NodeType::CA, NodeType::Switch, NodeType::Router};
constexpr PortState kPortStates[] = {PortState::NoChange, PortState::Down, PortState::Init,
                                     PortState::Armed, PortState::Active};
constexpr PhysState kPhysStates[] = {
    PhysState::NoChange, PhysState::Sleep,  PhysState::Polling,           PhysState::Disabled,
    PhysState::Training, PhysState::LinkUp, PhysState::LinkErrorRecovery, PhysState::PhyTest};
constexpr SmState kSmStates[] = {SmState::NotActive, SmState::Discovering, SmState::Standby,
                                 SmState::Master};
constexpr Width kWidths[] = {Width::X1, Width::X2, Width::X4, Width::X8, Width::X12};
constexpr Speed kSpeeds[] = {Speed::SDR, Speed::DDR, Speed::QDR, Speed::FDR10, Speed::FDR,
                             Speed::EDR, Speed::HDR, Speed::NDR, Speed::XDR};

}  // namespace

#define FABSCOPE_JSON_ENUM_IMPL(E, VALUES)                    \
    template <>                                               \
    std::optional<E> parse_enum_name<E>(std::string_view s) { \
        return by_name(s, VALUES);                            \
    }                                                         \
    template <>                                               \
    std::string_view enum_choices<E>() {                      \
        static const std::string c = choices(VALUES);         \
        return c;                                             \
    }
FABSCOPE_JSON_ENUM_IMPL(NodeType, kNodeTypes)
FABSCOPE_JSON_ENUM_IMPL(PortState, kPortStates)
FABSCOPE_JSON_ENUM_IMPL(PhysState, kPhysStates)
FABSCOPE_JSON_ENUM_IMPL(Width, kWidths)
FABSCOPE_JSON_ENUM_IMPL(Speed, kSpeeds)
FABSCOPE_JSON_ENUM_IMPL(SmState, kSmStates)
#undef FABSCOPE_JSON_ENUM_IMPL

Result<json> parse_json_text(const std::string& text, const std::string& origin) {
    if (text.size() > kMaxJsonBytes) {
        return make_error(
            fmt::format("{}: {} is more JSON than fabscope reads (at most {})", origin,
                        format_bytes(text.size()), format_bytes(kMaxJsonBytes)),
            kExitUsage);
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        return make_error(fmt::format("{}: file is empty", origin), kExitUsage);
    }
    // Before anything is built: a value nested without end would overflow
    // the stack when copied or printed, and a huge one would run out of memory.
    JsonShape shape = scan_json(text);
    if (shape.too_deep()) {
        auto [line, col] = line_col(text, shape.too_deep_at);
        return make_error(fmt::format("{}: JSON nested deeper than {} levels at line {}, column {}",
                                      origin, kMaxJsonDepth, line, col),
                          kExitUsage);
    }
    try {
        if (auto left = available_memory_bytes(); left && shape.parsed_bytes() > *left) {
            return make_error(
                fmt::format("{}: loading it would take about {} of memory and {} is available",
                            origin, format_bytes(shape.parsed_bytes()), format_bytes(*left)),
                kExitUsage);
        }
        // The first estimate counts values; the census reads the document
        // as the parser will and costs it as the parser allocates (vectors
        // grown by doubling), and refuses duplicate keys and huge strings.
        auto census = census_json(text, origin);
        if (!census) return census.error();
        if (auto left = available_memory_bytes(); left && census->parsed_bytes() > *left) {
            return make_error(
                fmt::format("{}: loading it would take about {} of memory and {} is available",
                            origin, format_bytes(census->parsed_bytes()), format_bytes(*left)),
                kExitUsage);
        }
        return json::parse(text);
    } catch (const json::parse_error& e) {
        if (e.byte >= text.size()) {
            return make_error(
                fmt::format("{}: truncated JSON: the document ends at byte {} before it is "
                            "complete",
                            origin, text.size()),
                kExitUsage);
        }
        auto [line, col] = line_col(text, e.byte == 0 ? 0 : e.byte - 1);
        std::string what = strip_exception_prefix(e.what());
        // nlohmann prefixes "parse error at line L, column C: "; we give our own.
        if (auto pos = what.find(": ");
            pos != std::string::npos && what.rfind("parse error", 0) == 0) {
            what = what.substr(pos + 2);
        }
        return make_error(
            fmt::format("{}: invalid JSON at line {}, column {}: {}", origin, line, col, what),
            kExitUsage);
    } catch (const json::exception& e) {
        // Not a syntax error but a value the parser cannot hold (a number
        // beyond a double, found by the fuzzer).
        return make_error(
            fmt::format("{}: invalid JSON: {}", origin, strip_exception_prefix(e.what())),
            kExitUsage);
    } catch (const std::bad_alloc&) {
        return out_of_memory(origin);
    }
}

Result<json> read_json_file(const std::string& path) {
    auto text = read_text_file(path, kMaxJsonBytes);
    if (!text) return text.error();
    return parse_json_text(*text, path == "-" ? "<stdin>" : path);
}

Error in_file(const std::string& path, const Error& e) {
    return make_error(fmt::format("{}: {}", path, e.message), kExitUsage);
}

void release(json& j) noexcept {
    // Documents are at most kMaxJsonDepth deep: the recursion is bounded.
    if (auto* a = j.get_ptr<json::array_t*>()) {
        for (json& e : *a) release(e);
        json::array_t().swap(*a);  // every element a scalar or empty now: nothing to flatten
    } else if (auto* o = j.get_ptr<json::object_t*>()) {
        for (auto& member : *o) release(member.second);
        o->clear();
    }
}

Status write_json_file(const json& j, const std::string& path) {
    return write_file_atomically(path, [&](std::ostream& out) {
        out << j.dump(1, ' ', false, json::error_handler_t::replace) << '\n';
    });
}

Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write) {
    if (path == "-") {
        std::cout.flush();
        write(std::cout);
        std::cout.flush();
        if (!std::cout) return make_error("writing to stdout failed", kExitCannotRun);
        return Ok{};
    }
    return replace_file(path, write);
}

std::string strip_exception_prefix(std::string_view what) {
    // "[json.exception.type_error.302] (/nodes/0/num) type must be number, but is string"
    if (!what.empty() && what.front() == '[') {
        if (auto pos = what.find("] "); pos != std::string_view::npos) what.remove_prefix(pos + 2);
    }
    // "(/nodes/0/num) msg" -> "/nodes/0/num: msg"
    if (!what.empty() && what.front() == '(') {
        if (auto pos = what.find(") "); pos != std::string_view::npos) {
            std::string_view path = what.substr(1, pos - 1);
            return fmt::format("{}: {}", path.empty() ? "/" : path, what.substr(pos + 2));
        }
    }
    return std::string(what);
}

void fail(const json& at, const std::string& message) {
    throw json::other_error::create(600, message, &at);
}

const json& get(const json& j, const char* key) {
    if (!j.is_object()) fail(j, "must be an object");
    auto it = j.find(key);
    if (it == j.end()) fail(j, fmt::format("missing required key \"{}\"", key));
    return *it;
}

const json& get_object(const json& j, const char* key) {
    const json& v = get(j, key);
    if (!v.is_object()) fail(v, "must be an object");
    return v;
}

const json& get_array(const json& j, const char* key) {
    const json& v = get(j, key);
    if (!v.is_array()) fail(v, "must be an array");
    return v;
}

std::string get_string(const json& j, const char* key) {
    const json& v = get(j, key);
    if (!v.is_string()) fail(v, "must be a string");
    return v.get<std::string>();
}

std::string get_string(const json& j, const char* key, const std::string& dflt) {
    return j.contains(key) && !j.at(key).is_null() ? get_string(j, key) : dflt;
}

std::string get_string_at_most(const json& j, const char* key, size_t max) {
    const json& v = get(j, key);
    if (!v.is_string()) fail(v, "must be a string");
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > max)
        fail(v, fmt::format("a string of {} bytes, longer than the {} this field holds", s.size(),
                            max));
    return s;
}

std::string get_string_at_most(const json& j, const char* key, size_t max,
                               const std::string& dflt) {
    return j.contains(key) && !j.at(key).is_null() ? get_string_at_most(j, key, max) : dflt;
}

bool get_bool(const json& j, const char* key, bool dflt) {
    if (!j.contains(key)) return dflt;
    const json& v = j.at(key);
    if (!v.is_boolean()) fail(v, "must be true or false");
    return v.get<bool>();
}

double get_double(const json& j, const char* key) {
    const json& v = get(j, key);
    if (!v.is_number()) fail(v, "must be a number");
    return v.get<double>();
}

double get_double(const json& j, const char* key, double dflt) {
    return j.contains(key) && !j.at(key).is_null() ? get_double(j, key) : dflt;
}

Guid get_guid(const json& j, const char* key) {
    const json& v = get(j, key);
    if (!v.is_string()) fail(v, "must be a GUID string such as \"0x0002c90300a1b2c3\"");
    auto g = parse_guid(v.get_ref<const std::string&>());
    if (!g)
        fail(v, fmt::format("\"{}\" is not a GUID (up to 16 hex digits, 0x prefix)",
                            v.get<std::string>()));
    return *g;
}

Guid get_guid(const json& j, const char* key, Guid dflt) {
    return j.contains(key) && !j.at(key).is_null() ? get_guid(j, key) : dflt;
}

uint64_t get_hex(const json& j, const char* key, uint64_t dflt, uint64_t max) {
    if (!j.contains(key) || j.at(key).is_null()) return dflt;
    const json& v = j.at(key);
    std::optional<uint64_t> u;
    if (v.is_number_unsigned()) u = v.get<uint64_t>();
    if (v.is_string()) u = parse_guid(v.get_ref<const std::string&>());
    if (!u) fail(v, "must be an unsigned number or a hex string such as \"0x1a\"");
    if (*u > max) fail(v, fmt::format("{:#x} is out of range (at most {:#x})", *u, max));
    return *u;
}

uint64_t get_uint_checked(const json& j, const char* key, uint64_t max) {
    const json& v = get(j, key);
    if (!v.is_number_integer()) fail(v, "must be an unsigned integer");
    if (!v.is_number_unsigned() && v.get<int64_t>() < 0) fail(v, "must not be negative");
    uint64_t u = v.get<uint64_t>();
    if (u > max) fail(v, fmt::format("{} is out of range (at most {})", u, max));
    return u;
}

uint64_t get_uint_between(const json& j, const char* key, uint64_t min, uint64_t max) {
    uint64_t u = get_uint_checked(j, key, std::numeric_limits<uint64_t>::max());
    if (u < min || u > max)
        fail(get(j, key), fmt::format("{} is out of range ({}..{})", u, min, max));
    return u;
}

}  // namespace fabscope::json_io
