#include "lab_harness.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "schema_check.h"
#include "util/process.h"

namespace fabscope::labtest {

ScratchDir::ScratchDir(const std::string& prefix)
    : dir_(std::filesystem::temp_directory_path() /
           (prefix + "-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

std::string ScratchDir::write(const std::string& name, const std::string& text) const {
    std::string p = path(name);
    std::ofstream(p) << text;
    return p;
}
std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string fixture(const std::string& relative) {
    return std::string(FABSCOPE_SOURCE_DIR) + "/tests/fixtures/" + relative;
}

namespace fs = std::filesystem;

namespace {

std::string scratch_base() {
    const char* base = std::getenv("FABSCOPE_LAB_BASE");
    std::string b =
        base && *base ? base : (fs::temp_directory_path() / "fabscope-lab-tests").string();
    fs::create_directories(b);
    return b;
}

std::string unique_name(const char* what) {
    static std::atomic<int> n{0};
    return fmt::format("{}-{}-{}", what, ::getpid(), n++);
}

}  // namespace

bool wait_for_text(const std::string& path, const std::string& text,
                   std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        std::ifstream in(path);
        std::stringstream got;
        got << in.rdbuf();
        if (got.str().find(text) != std::string::npos) return true;
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::string fabscope() {
    return FABSCOPE_BIN;
}

std::string scratch_path(const char* what) {
    return scratch_base() + "/" + unique_name(what);
}

CmdResult run(const std::vector<std::string>& argv, std::chrono::seconds timeout,
              const std::map<std::string, std::string>& env) {
    std::string base = scratch_base() + "/" + unique_name("run");
    SpawnOptions o;
    o.argv = argv;
    o.env = env;
    o.stdout_path = base + ".out";
    o.stderr_path = base + ".err";
    CmdResult r;
    auto child = spawn(o);
    if (!child) {
        ADD_FAILURE() << "cannot run " << argv.front() << ": " << child.error().message;
        return r;
    }
    RunResult res =
        wait_child(child->pid, std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
    if (res.timed_out)
        ADD_FAILURE() << argv.front() << " timed out after " << timeout.count() << " s";
    r.exit_code = res.exit_code;
    r.out = slurp(o.stdout_path);
    r.err = slurp(o.stderr_path);
    fs::remove(o.stdout_path);
    fs::remove(o.stderr_path);
    return r;
}

Lab::Lab(std::vector<std::string> up_args) : dir_(scratch_base() + "/" + unique_name("lab")) {
    std::vector<std::string> argv{fabscope(), "lab", "up", "--json", "--dir", dir_};
    argv.insert(argv.end(), up_args.begin(), up_args.end());
    CmdResult r = run(argv);
    up_ = r.exit_code == 0;
    EXPECT_EQ(r.exit_code, 0) << "lab up failed:\n" << r.err;
    // Every lab a test starts checks `lab up --json` against its schema.
    if (up_) {
        for (const auto& e : testing::text_schema_errors(r.out, "lab-up.schema.json"))
            ADD_FAILURE() << "lab up --json: " << e;
    }
}

Lab::~Lab() {
    CmdResult r = run({fabscope(), "lab", "down", "--dir", dir_});
    EXPECT_EQ(r.exit_code, 0) << "lab down failed:\n" << r.err;
    // lab down leaves what a test wrote into the directory: the scratch is the harness's.
    std::error_code ec;
    if (r.exit_code == 0) fs::remove_all(dir_, ec);
}

CmdResult Lab::exec(const std::vector<std::string>& argv, std::chrono::seconds timeout) const {
    std::vector<std::string> full{fabscope(), "lab", "exec", "--dir", dir_, "--"};
    full.insert(full.end(), argv.begin(), argv.end());
    return run(full, timeout);
}

CmdResult Lab::fault(const std::vector<std::string>& words) const {
    std::vector<std::string> full{fabscope(), "lab", "fault", "--dir", dir_};
    full.insert(full.end(), words.begin(), words.end());
    return run(full);
}

FrozenSm::FrozenSm(const Lab& lab) {
    auto state = nlohmann::json::parse(slurp(lab.dir() + "/state.json"));
    pid_ = state["processes"]["opensm"]["pid"].get<int>();
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

FrozenSm::~FrozenSm() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
}

namespace {

using LinkKey = std::pair<std::pair<uint64_t, int>, std::pair<uint64_t, int>>;

LinkKey make_key(uint64_t g1, int p1, uint64_t g2, int p2) {
    auto a = std::make_pair(g1, p1);
    auto b = std::make_pair(g2, p2);
    return a < b ? LinkKey{a, b} : LinkKey{b, a};
}

}  // namespace

PeerTopology parse_ibnetdiscover(const std::string& text) {
    // Switch	7 "S-0000000000200003"		# "leaf04" enhanced port 0 lid 6 lmc 0
    // [1]	"H-0000000000100018"[1](100019) 		# "h0013 HCA-1" lid 19 4xHDR
    // Ca	1 "H-0000000000100018"		# "h0013 HCA-1"
    // [1](100019) 	"S-0000000000200003"[1]		# lid 19 lmc 0 "leaf04" lid 6 4xHDR
    static const std::regex node_re(
        R"re(^(Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-f]+)"\s+#\s+"([^"]*)")re");
    static const std::regex port_re(
        R"re(^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SHR]-([0-9a-f]+)"\[(\d+)\].*\s(\d+x[A-Z0-9]+)\s*$)re");
    PeerTopology t;
    uint64_t current = 0;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, node_re)) {
            current = std::stoull(m[2], nullptr, 16);
            t.nodes[current] = m[3];
            t.types[current] = m[1];
        } else if (current && std::regex_search(line, m, port_re)) {
            t.links[make_key(current, std::stoi(m[1]), std::stoull(m[2], nullptr, 16),
                             std::stoi(m[3]))] = m[4];
        }
    }
    return t;
}

PeerTopology topology_of_snapshot(const std::string& json_text) {
    auto j = nlohmann::json::parse(json_text);
    PeerTopology t;
    for (const auto& n : j["nodes"]) {
        uint64_t g = std::stoull(n["guid"].get<std::string>(), nullptr, 16);
        t.nodes[g] = n["description"];
        t.types[g] = n["type"] == "Switch" ? "Switch" : n["type"] == "CA" ? "Ca" : "Rt";
    }
    for (const auto& l : j["links"]) {
        uint64_t ga = std::stoull(l["a"]["guid"].get<std::string>(), nullptr, 16);
        uint64_t gb = std::stoull(l["b"]["guid"].get<std::string>(), nullptr, 16);
        std::string rate;
        if (l.contains("width")) {
            // ibnetdiscover spells 4X HDR as "4xHDR".
            std::string w = l["width"];
            w.back() = 'x';
            rate = w + l["speed"].get<std::string>();
        }
        t.links[make_key(ga, l["a"]["port"], gb, l["b"]["port"])] = rate;
    }
    return t;
}

std::map<std::string, uint64_t> parse_perfquery(const std::string& text) {
    static const std::regex re(R"re(^(\w+):\.+(0x[0-9a-fA-F]+|\d+)\s*$)re");
    std::map<std::string, uint64_t> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, re)) out[m[1]] = std::stoull(m[2], nullptr, 0);
    }
    return out;
}

std::map<int, int> parse_ibroute(const std::string& text) {
    static const std::regex re(R"re(^0x([0-9a-fA-F]{4}) (\d{3}) :)re");
    std::map<int, int> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, re)) out[std::stoi(m[1], nullptr, 16)] = std::stoi(m[2]);
    }
    return out;
}

std::vector<std::tuple<int, int, std::string>> parse_ibtracert(const std::string& text) {
    static const std::regex re(
        R"re(^\[(\d+)\] -> (?:switch|ca) port \{0x[0-9a-f]+\}\[(\d+)\].*"([^"]*)"\s*$)re");
    std::vector<std::tuple<int, int, std::string>> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, re))
            out.emplace_back(std::stoi(m[1]), std::stoi(m[2]), m[3]);
    }
    return out;
}

}  // namespace fabscope::labtest
