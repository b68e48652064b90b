#pragma once
// Reading the fields of a message from a peer without trusting it: a field of
// the wrong type is "absent", never an exception. Every protocol over the
// channel (perf sessions, the ranks' relay, the mesh and probe agents) reads
// its messages this way.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabscope::perf {

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
