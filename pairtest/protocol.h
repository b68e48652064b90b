#pragma once
// The messages of a perf session (see pairtest/session.h for their order), and
// reading them without trusting them: a field of the wrong type is "absent",
// never an exception.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabscope::perf {

/// Version 2: the server speaks first (welcome, with the challenge), and
/// tells the client which caps it applied.
inline constexpr int kProtocol = 2;

/// The "type" of a message; "" when it has none or it is not a string.
std::string message_type(const nlohmann::json& m);
/// A string field; `dflt` when absent or not a string.
std::string message_text(const nlohmann::json& m, const char* key, const std::string& dflt = "");
/// An integer field; `dflt` when absent or not an integer.
int64_t message_int(const nlohmann::json& m, const char* key, int64_t dflt = 0);
/// A boolean field; `dflt` when absent or not a boolean.
bool message_bool(const nlohmann::json& m, const char* key, bool dflt = false);
/// The strings of an array field (other elements are skipped), at most `max`.
std::vector<std::string> message_strings(const nlohmann::json& m, const char* key, size_t max = 32);

}  // namespace fabscope::perf
