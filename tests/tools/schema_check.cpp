#include "schema_check.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/process.h"

namespace fabscope::testing {
namespace {

namespace fs = std::filesystem;

// Debian's interpreter: python3-jsonschema is installed for it, not for
// whatever python3 comes first on PATH.
constexpr const char* kPython = "/usr/bin/python3";

/// A fresh file under TMPDIR (or /tmp) holding `text`; removed by the caller.
std::string temp_file(const std::string& text) {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/fabscope-schema-XXXXXX";
    int fd = mkstemp(path.data());
    if (fd < 0) return "";
    close(fd);
    std::ofstream(path) << text;
    return path;
}

std::vector<std::string> lines_of(const std::string& path) {
    std::vector<std::string> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

}  // namespace

std::string schema_path(const std::string& name) {
    return std::string(FABSCOPE_SOURCE_DIR) + "/docs/" + name;
}

std::vector<std::string> all_schema_paths() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(std::string(FABSCOPE_SOURCE_DIR) + "/docs")) {
        const std::string name = e.path().filename().string();
        if (name.ends_with(".schema.json")) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

SchemaCheck run_schema_check(const std::string& schema, const std::vector<std::string>& files) {
    SchemaCheck r;
    std::string out = temp_file("");
    if (out.empty()) {
        r.output = {"cannot create a temporary file"};
        return r;
    }
    SpawnOptions o;
    o.argv = {kPython, std::string(FABSCOPE_SOURCE_DIR) + "/tests/tools/check_schema.py", schema};
    o.argv.insert(o.argv.end(), files.begin(), files.end());
    o.stdout_path = out;
    o.stderr_path = out;
    auto child = spawn(o);
    if (!child) {
        r.output = {"cannot run " + std::string(kPython) + ": " + child.error().message};
    } else {
        r.exit_code = wait_child(child->pid, std::chrono::seconds(60)).exit_code;
        r.output = lines_of(out);
    }
    fs::remove(out);
    return r;
}

SchemaCheck run_schema_check_of(const nlohmann::json& schema) {
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/fabscope-schema-dir-XXXXXX";
    if (!mkdtemp(dir.data())) {
        SchemaCheck r;
        r.output = {"cannot create a temporary directory"};
        return r;
    }
    std::ofstream(dir + "/t.schema.json") << schema.dump();
    SchemaCheck r = run_schema_check(dir + "/t.schema.json", {});
    fs::remove_all(dir);
    return r;
}

std::vector<std::string> texts_schema_errors(const std::vector<std::string>& texts,
                                             const std::string& schema) {
    std::vector<std::string> files;
    files.reserve(texts.size());
    for (const std::string& text : texts) files.push_back(temp_file(text));
    SchemaCheck r;
    if (std::find(files.begin(), files.end(), "") != files.end()) {
        r.output = {"cannot create a temporary file"};
    } else {
        r = run_schema_check(schema_path(schema), files);
    }
    std::vector<std::string> errors;
    errors.reserve(r.output.size() + 1);
    for (const std::string& line : r.output) {
        // "FILE: path: message": a temporary file's name says nothing, its place does.
        std::string e = line;
        for (size_t i = 0; i < files.size(); ++i) {
            if (!line.starts_with(files[i] + ": ")) continue;
            e = line.substr(files[i].size() + 2);
            if (files.size() > 1) e = fmt::format("document {}: {}", i, e);
        }
        errors.push_back(e);
    }
    for (const std::string& f : files) {
        if (!f.empty()) fs::remove(f);
    }
    if (r.exit_code == 0) return {};
    if (r.exit_code != 1 || errors.empty()) {
        errors.insert(errors.begin(), fmt::format("{}: the checker exited {} (2: unusable schema)",
                                                  schema, r.exit_code));
    }
    return errors;
}

std::vector<std::string> text_schema_errors(const std::string& text, const std::string& schema) {
    return texts_schema_errors({text}, schema);
}

std::vector<std::string> schema_errors(const nlohmann::json& doc, const std::string& schema) {
    return texts_schema_errors({doc.dump()}, schema);
}

std::vector<std::string> schema_errors(const std::vector<nlohmann::json>& docs,
                                       const std::string& schema) {
    std::vector<std::string> texts;
    texts.reserve(docs.size());
    for (const nlohmann::json& d : docs) texts.push_back(d.dump());
    return texts_schema_errors(texts, schema);
}

}  // namespace fabscope::testing
