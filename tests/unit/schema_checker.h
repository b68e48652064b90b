#pragma once
// A checker for the subset of JSON Schema the documents in docs/ use (type,
// required, properties, additionalProperties, items, enum, const, $ref,
// oneOf, pattern). It fails on any member the schema does not describe, so a
// schema cannot fall behind what fabscope writes.

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace fabscope::testing {

class SchemaChecker {
    using json = nlohmann::json;

  public:
    /// `others`: documents `schema` refers to by file name. Their own "#/$defs"
    /// references are looked up in a shared table of every document's $defs.
    explicit SchemaChecker(json schema, std::map<std::string, json> others = {})
        : root_(std::move(schema)), others_(std::move(others)) {
        for (const json* doc : {&root_}) defs_.update(doc->value("$defs", json::object()));
        for (const auto& [name, doc] : others_) defs_.update(doc.value("$defs", json::object()));
    }

    std::vector<std::string> check(const json& doc) {
        errors_.clear();
        visit(doc, root_, "");
        return errors_;
    }

  private:
    const json& resolve(const json& s) {
        if (!s.contains("$ref")) return s;
        std::string ref = s["$ref"];  // "#/$defs/name" or "other.schema.json#/$defs/name"
        const std::string def = ref.substr(ref.rfind('/') + 1);
        if (!defs_.contains(def)) throw std::runtime_error("unresolved $ref " + ref);
        return resolve(defs_.at(def));
    }

    bool type_ok(const json& v, const std::string& t) {
        if (t == "object") return v.is_object();
        if (t == "array") return v.is_array();
        if (t == "string") return v.is_string();
        if (t == "integer") return v.is_number_integer();
        if (t == "number") return v.is_number();
        if (t == "boolean") return v.is_boolean();
        if (t == "null") return v.is_null();
        return false;
    }

    bool matches(const json& v, const json& schema_in) {
        size_t before = errors_.size();
        visit(v, schema_in, "");
        bool ok = errors_.size() == before;
        errors_.resize(before);
        return ok;
    }

    void visit(const json& v, const json& schema_in, const std::string& path) {
        const json& s = resolve(schema_in);
        if (s.contains("oneOf")) {
            int n = 0;
            for (const json& alt : s["oneOf"]) n += matches(v, alt);
            if (n != 1) errors_.push_back(path + ": matches " + std::to_string(n) + " of oneOf");
            return;
        }
        if (s.contains("const") && v != s["const"]) errors_.push_back(path + ": not the constant");
        if (s.contains("enum") &&
            std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end()) {
            errors_.push_back(path + ": " + v.dump() + " not in enum");
        }
        if (s.contains("type")) {
            bool ok = false;
            if (s["type"].is_array()) {
                for (const json& t : s["type"]) ok = ok || type_ok(v, t);
            } else {
                ok = type_ok(v, s["type"]);
            }
            if (!ok) errors_.push_back(path + ": wrong type for " + v.dump());
        }
        if (s.contains("pattern") && v.is_string() &&
            !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>()))) {
            errors_.push_back(path + ": " + v.dump() + " does not match " +
                              s["pattern"].get<std::string>());
        }
        if (v.is_object()) {
            for (const json& r : s.value("required", json::array())) {
                if (!v.contains(r)) errors_.push_back(path + ": missing " + r.get<std::string>());
            }
            const json props = s.value("properties", json::object());
            const bool open = s.value("additionalProperties", false);
            for (const auto& [k, sub] : v.items()) {
                if (open && !props.contains(k)) continue;
                if (!props.contains(k)) {
                    errors_.push_back(path + "/" + k + ": not described by the schema");
                    continue;
                }
                visit(sub, props[k], path + "/" + k);
            }
        }
        if (v.is_array() && s.contains("items")) {
            for (size_t i = 0; i < v.size(); ++i)
                visit(v[i], s["items"], path + "/" + std::to_string(i));
        }
    }

    json root_;
    std::map<std::string, json> others_;
    json defs_ = json::object();
    std::vector<std::string> errors_;
};

}  // namespace fabscope::testing
