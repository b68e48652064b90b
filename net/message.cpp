#include "net/message.h"

namespace fabscope::perf {
namespace {

const nlohmann::json* field(const nlohmann::json& m, const char* key) {
    if (!m.is_object()) return nullptr;
    auto it = m.find(key);
    return it == m.end() ? nullptr : &*it;
}

}  // namespace

std::string message_type(const nlohmann::json& m) {
    return message_text(m, "type");
}

std::string message_text(const nlohmann::json& m, const char* key, const std::string& dflt) {
    const nlohmann::json* f = field(m, key);
    return f && f->is_string() ? f->get<std::string>() : dflt;
}

int64_t message_int(const nlohmann::json& m, const char* key, int64_t dflt) {
    const nlohmann::json* f = field(m, key);
    return f && f->is_number_integer() ? f->get<int64_t>() : dflt;
}

bool message_bool(const nlohmann::json& m, const char* key, bool dflt) {
    const nlohmann::json* f = field(m, key);
    return f && f->is_boolean() ? f->get<bool>() : dflt;
}

std::vector<std::string> message_strings(const nlohmann::json& m, const char* key, size_t max) {
    std::vector<std::string> out;
    const nlohmann::json* f = field(m, key);
    if (!f || !f->is_array()) return out;
    for (const nlohmann::json& v : *f) {
        if (out.size() >= max) break;
        if (v.is_string()) out.push_back(v.get<std::string>());
    }
    return out;
}

}  // namespace fabscope::perf
