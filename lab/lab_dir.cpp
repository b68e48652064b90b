#include "lab/lab_dir.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "model/json_io.h"
#include "util/exit_status.h"

namespace fabscope {

namespace fs = std::filesystem;

namespace {

std::string normalise(const std::string& dir) {
    fs::path p = fs::absolute(dir).lexically_normal();
    if (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "a/b/" -> "a/b"
    return p.string();
}

bool is_sys_dir(const std::string& name) {
    // umad2sim's fake sysfs tree: sys-PID
    return name.size() > 4 && name.rfind("sys-", 0) == 0 &&
           std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_tmp_file(const std::string& name) {
    // json_io's atomic writes: NAME.tmp.PID of a lab file
    auto pos = name.find(".tmp.");
    return pos != std::string::npos && is_lab_entry(name.substr(0, pos));
}

}  // namespace

Status check_lab_name(const std::string& name) {
    bool ok = !name.empty() && name.size() <= 64 && name.front() != '.' &&
              std::all_of(name.begin(), name.end(), [](char c) {
                  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
              });
    if (!ok) {
        return make_error(fmt::format("--name \"{}\": a lab name is a plain name (letters, digits, "
                                      "'.', '_', '-'; not starting with '.'); use --dir for a path",
                                      name),
                          kExitUsage);
    }
    return Ok{};
}

std::string lab_base_dir() {
    if (const char* b = std::getenv("FABSCOPE_LAB_BASE"); b && *b) return normalise(b);
    if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x)
        return normalise(std::string(x) + "/fabscope-lab");
    return fmt::format("/tmp/fabscope-lab-{}", ::getuid());
}

Status ensure_private_base(const std::string& base) {
    struct stat st {};
    if (::lstat(base.c_str(), &st) != 0) {
        if (errno != ENOENT)
            return make_error(fmt::format("lab folder {}: {}", base, std::strerror(errno)),
                              kExitCannotRun);
        std::error_code ec;
        fs::create_directories(fs::path(base).parent_path(), ec);
        if (::mkdir(base.c_str(), 0700) != 0 && errno != EEXIST)
            return make_error(
                fmt::format("lab folder {}: cannot create: {}", base, std::strerror(errno)),
                kExitCannotRun);
        if (::lstat(base.c_str(), &st) != 0)
            return make_error(fmt::format("lab folder {}: {}", base, std::strerror(errno)),
                              kExitCannotRun);
    }
    if (!S_ISDIR(st.st_mode))
        return make_error(
            fmt::format("lab folder {} is not a directory (a symlink?): refused", base),
            kExitCannotRun);
    if (st.st_uid != ::getuid())
        return make_error(
            fmt::format("lab folder {} belongs to uid {}, not to you: refused", base, st.st_uid),
            kExitCannotRun);
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return make_error(fmt::format("lab folder {} is writable by others (mode {:o}): refused; "
                                      "`chmod 700 {}`",
                                      base, st.st_mode & 07777, base),
                          kExitCannotRun);
    return Ok{};
}

Result<std::string> resolve_lab_dir(const std::string& name, const std::string& dir) {
    if (!dir.empty()) return normalise(dir);
    if (auto n = check_lab_name(name); !n) return n.error();
    const std::string base = lab_base_dir();
    if (auto b = ensure_private_base(base); !b) return b.error();
    return base + "/" + name;
}

bool holds_lab_state(const std::string& dir) {
    auto doc = json_io::read_json_file(dir + "/state.json");
    if (!doc || !doc->is_object()) return false;
    auto format = doc->find("format");
    auto recorded = doc->find("dir");
    return format != doc->end() && *format == "fabscope-lab" && recorded != doc->end() &&
           recorded->is_string() && normalise(recorded->get<std::string>()) == normalise(dir);
}

const std::vector<std::string>& lab_entries() {
    static const std::vector<std::string> kEntries = {
        "state.json",  "net",        "console",     "console.lock",   "ibsim.out",
        "ibsim.err",   "opensm.out", "osm",         "supervisor.log", "supervisor.ready",
        "silent.json", "locate.out", "set-port.out"};
    return kEntries;
}

bool is_lab_entry(const std::string& filename) {
    const auto& e = lab_entries();
    return std::find(e.begin(), e.end(), filename) != e.end();
}

Result<LabDirUse> check_lab_dir_for_up(const std::string& dir) {
    std::error_code ec;
    auto st = fs::symlink_status(dir, ec);
    if (ec || st.type() == fs::file_type::not_found) return LabDirUse::Create;
    if (st.type() != fs::file_type::directory)
        return make_error(fmt::format("lab {}: exists and is not a directory: refused", dir),
                          kExitUsage);
    if (holds_lab_state(dir)) return LabDirUse::ReuseLab;
    if (fs::is_empty(dir, ec) && !ec) return LabDirUse::UseEmpty;
    return make_error(fmt::format("lab {}: the directory exists and holds no lab of fabscope's; "
                                  "give a new or empty directory",
                                  dir),
                      kExitUsage);
}

Result<std::vector<std::string>> remove_lab_files(const std::string& dir, bool remove_dir) {
    std::vector<std::string> left;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        auto type = entry.symlink_status(ec).type();
        bool ours = is_lab_entry(name) || is_tmp_file(name) || is_sys_dir(name);
        // osm/ and sys-PID/ are the lab's own folders; a symlink in their place is not.
        bool folder = name == "osm" || is_sys_dir(name);
        if (!ours || (folder && type != fs::file_type::directory) ||
            (!folder && type == fs::file_type::directory)) {
            left.push_back(name);
            continue;
        }
        std::error_code rm;
        if (folder)
            fs::remove_all(entry.path(), rm);
        else
            fs::remove(entry.path(), rm);
        if (rm)
            return make_error(fmt::format("lab {}: cannot remove {}: {}", dir, name, rm.message()),
                              kExitCannotRun);
    }
    if (ec) return make_error(fmt::format("lab {}: {}", dir, ec.message()), kExitCannotRun);
    std::sort(left.begin(), left.end());
    if (remove_dir && left.empty()) {
        fs::remove(dir, ec);
        if (ec)
            return make_error(fmt::format("lab {}: cannot remove: {}", dir, ec.message()),
                              kExitCannotRun);
    }
    return left;
}

}  // namespace fabscope
