// Discovery against the simulated lab, checked against ibnetdiscover run on
// the same lab in the same test.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "lab_harness.h"
#include "schema_check.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Discovered {
    json snapshot;
    std::string summary;
};

Discovered discover(const Lab& lab) {
    CmdResult r = lab.exec({fabscope(), "discover", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "snapshot.schema.json"))
        ADD_FAILURE() << "discover --json: " << e;
    return {json::parse(r.out.empty() ? "{}" : r.out), r.err};
}

void expect_same_as_ibnetdiscover(const Lab& lab, const json& snapshot) {
    CmdResult peer = lab.exec({"ibnetdiscover"});
    ASSERT_EQ(peer.exit_code, 0) << peer.err;
    PeerTopology theirs = parse_ibnetdiscover(peer.out);
    PeerTopology ours = topology_of_snapshot(snapshot.dump());
    ASSERT_FALSE(theirs.nodes.empty());
    EXPECT_EQ(ours.nodes, theirs.nodes);
    EXPECT_EQ(ours.types, theirs.types);
    EXPECT_EQ(ours.links.size(), theirs.links.size());
    EXPECT_TRUE(ours.links == theirs.links) << "links or their rates differ from ibnetdiscover";
}

std::map<std::string, int> tier_counts(const json& snapshot) {
    std::map<std::string, int> c;
    for (const auto& n : snapshot["nodes"]) ++c[n["tier"].get<std::string>()];
    return c;
}

std::vector<std::string> finding_kinds(const json& snapshot) {
    std::vector<std::string> k;
    for (const auto& f : snapshot["findings"]) k.push_back(f["kind"]);
    std::sort(k.begin(), k.end());
    return k;
}

TEST(DiscoverLab, SixteenHostsMatchIbnetdiscover) {
    Lab lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());
    Discovered d = discover(lab);
    expect_same_as_ibnetdiscover(lab, d.snapshot);
    EXPECT_EQ(tier_counts(d.snapshot),
              (std::map<std::string, int>{{"host", 16}, {"leaf", 4}, {"spine", 2}}));
    EXPECT_TRUE(d.snapshot["findings"].empty()) << d.snapshot["findings"].dump(1);
    EXPECT_NE(d.summary.find("16 hosts, 4 leaves, 2 spines"), std::string::npos) << d.summary;
}

TEST(DiscoverLab, LinkDownAndDegradedLinkAreReported) {
    Lab lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());

    // Unplug leaf01's only link to spine02 (leaf port 6).
    CmdResult f = lab.fault({"link-down", "leaf01[6]"});
    ASSERT_EQ(f.exit_code, 0) << f.err;
    Discovered d = discover(lab);
    expect_same_as_ibnetdiscover(lab, d.snapshot);
    EXPECT_EQ(finding_kinds(d.snapshot),
              (std::vector<std::string>{"link_count_asymmetry", "port_polling", "port_polling"}));
    EXPECT_NE(d.summary.find("leaf01 and spine02 are joined by 0 links"), std::string::npos)
        << d.summary;
    EXPECT_NE(d.summary.find("leaf01[6]"), std::string::npos) << d.summary;
    // The tiers do not change: the leaf still reaches spine02 through nothing, spine02 through
    // others.
    EXPECT_EQ(tier_counts(d.snapshot),
              (std::map<std::string, int>{{"host", 16}, {"leaf", 4}, {"spine", 2}}));

    ASSERT_EQ(lab.fault({"link-up", "leaf01[6]"}).exit_code, 0);
    // Degrade leaf02's link to spine01 to 1X on both ends.
    f = lab.fault({"width", "leaf02[5]", "1x"});
    ASSERT_EQ(f.exit_code, 0) << f.err;
    d = discover(lab);
    expect_same_as_ibnetdiscover(lab, d.snapshot);
    ASSERT_EQ(finding_kinds(d.snapshot), std::vector<std::string>{"link_below_peers"});
    const json& x = d.snapshot["findings"][0];
    EXPECT_EQ(x["evidence"]["width_active"], "1X");
    EXPECT_EQ(x["evidence"]["usual_width"], "4X");
    std::set<std::string> ends{
        x["where"][0]["node"].get<std::string>() + "/" + x["where"][0]["port"].dump(),
        x["where"][1]["node"].get<std::string>() + "/" + x["where"][1]["port"].dump()};
    EXPECT_EQ(ends, (std::set<std::string>{"leaf02/5", "spine01/2"}));

    // And a slower speed on another link.
    ASSERT_EQ(lab.fault({"speed", "leaf03[6]", "edr"}).exit_code, 0);
    d = discover(lab);
    expect_same_as_ibnetdiscover(lab, d.snapshot);
    EXPECT_EQ(finding_kinds(d.snapshot),
              (std::vector<std::string>{"link_below_peers", "link_below_peers"}));
}

TEST(DiscoverLab, SixHundredFortyEightHostsMatchIbnetdiscoverExactly) {
    Lab lab({"--spines", "18", "--leaves", "36", "--hosts-per-leaf", "18"});
    ASSERT_TRUE(lab.up());
    Discovered d = discover(lab);
    expect_same_as_ibnetdiscover(lab, d.snapshot);
    EXPECT_EQ(tier_counts(d.snapshot),
              (std::map<std::string, int>{{"host", 648}, {"leaf", 36}, {"spine", 18}}));
    EXPECT_EQ(d.snapshot["links"].size(), 648u + 36u * 18u);
    EXPECT_TRUE(d.snapshot["findings"].empty());
}

TEST(DiscoverLab, SnapshotFileAndCacheImportAgree) {
    Lab lab({"--spines", "2", "--leaves", "3", "--hosts-per-leaf", "2", "--links-per-pair", "2"});
    ASSERT_TRUE(lab.up());
    std::string snap = lab.dir() + "/../" + fs::path(lab.dir()).filename().string() + "-snap.json";
    std::string cache = lab.dir() + "/../" + fs::path(lab.dir()).filename().string() + "-cache.bin";
    ASSERT_EQ(lab.exec({fabscope(), "discover", "-q", "-o", snap}).exit_code, 0);
    ASSERT_EQ(lab.exec({"ibnetdiscover", "--cache", cache}).exit_code, 0);

    CmdResult from_file = run({fabscope(), "discover", "--load", snap, "--json", "-q"});
    ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
    CmdResult from_cache = run({fabscope(), "discover", "--load-cache", cache, "--json", "-q"});
    ASSERT_EQ(from_cache.exit_code, 0) << from_cache.err;
    // The file `discover -o` wrote, and what a reload and an import write, are snapshots.
    std::ostringstream written;
    written << std::ifstream(snap).rdbuf();
    for (const auto& e : fabscope::testing::texts_schema_errors(
             {written.str(), from_file.out, from_cache.out}, "snapshot.schema.json"))
        ADD_FAILURE() << "discover -o, --load, --load-cache: " << e;
    PeerTopology a = topology_of_snapshot(from_file.out);
    PeerTopology b = topology_of_snapshot(from_cache.out);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_TRUE(a.links == b.links);
    EXPECT_EQ(a.links.size(), 6u + 3u * 2u * 2u);  // host links + leaf-spine links
    fs::remove(snap);
    fs::remove(cache);
}

TEST(DiscoverLab, TwoLabsSideBySide) {
    Lab a({"--spines", "2", "--leaves", "2", "--hosts-per-leaf", "2"});
    Lab b({"--spines", "3", "--leaves", "3", "--hosts-per-leaf", "1"});
    ASSERT_TRUE(a.up() && b.up());
    EXPECT_EQ(tier_counts(discover(a).snapshot),
              (std::map<std::string, int>{{"host", 4}, {"leaf", 2}, {"spine", 2}}));
    EXPECT_EQ(tier_counts(discover(b).snapshot),
              (std::map<std::string, int>{{"host", 3}, {"leaf", 3}, {"spine", 3}}));
}

TEST(DiscoverLab, KilledClientsDoNotUseUpTheSimulator) {
    Lab lab({"--spines", "2", "--leaves", "2", "--hosts-per-leaf", "2"});
    ASSERT_TRUE(lab.up());
    // The simulator has 10 client slots; a killed client keeps its slot until
    // the lab frees it. `iblinkinfo -S GUID` never gets an answer from the
    // simulator and waits forever: a stuck client, killed like a user would.
    for (int i = 0; i < 12; ++i) {
        CmdResult r = run({fabscope(), "lab", "exec", "--dir", lab.dir(), "--timeout", "1", "--",
                           "iblinkinfo", "-S", "0x200000"});
        EXPECT_EQ(r.exit_code, 3);
        EXPECT_NE(r.err.find("did not finish within 1 s"), std::string::npos) << r.err;
    }
    Discovered d = discover(lab);
    EXPECT_EQ(d.snapshot["nodes"].size(), 8u);
}

TEST(DiscoverLab, SupervisorFreesSlotsOfClientsKilledOutsideLabExec) {
    Lab lab({"--spines", "2", "--leaves", "2", "--hosts-per-leaf", "2"});
    ASSERT_TRUE(lab.up());
    auto state = nlohmann::json::parse(std::ifstream(lab.dir() + "/state.json"));
    // Clients started by hand with the simulator's environment (no lab exec to
    // clean up after them), all ten slots taken, then killed with SIGKILL.
    SpawnOptions o;
    o.argv = {"iblinkinfo", "-S", "0x200000"};
    o.env = {{"LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"},
             {"IBSIM_SOCKNAME", state["sockname"].get<std::string>()}};
    o.cwd = lab.dir();
    o.stdout_path = lab.dir() + "/stuck.out";
    o.stderr_path = lab.dir() + "/stuck.out";
    std::vector<ProcessId> stuck;
    for (int i = 0; i < 10; ++i) {
        auto p = spawn(o);
        ASSERT_TRUE(p);
        stuck.push_back(*p);
    }
    // A client holds its slot once umad2sim has made its fake sysfs tree
    // (./sys-PID, after the simulator answered it); one that found the
    // simulator full (OpenSM and the lab hold slots too) exits at once.
    std::vector<bool> settled(stuck.size(), false);
    int refused = 0;
    auto all_settled = [&] {
        for (size_t i = 0; i < stuck.size(); ++i) {
            if (settled[i]) continue;
            int status = 0;
            if (::waitpid(stuck[i].pid, &status, WNOHANG) == stuck[i].pid) {
                settled[i] = true;
                ++refused;
            } else if (std::filesystem::exists(lab.dir() + "/sys-" +
                                               std::to_string(stuck[i].pid))) {
                settled[i] = true;
            }
        }
        return std::all_of(settled.begin(), settled.end(), [](bool b) { return b; });
    };
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
         !all_settled() && std::chrono::steady_clock::now() < until;)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(all_settled());
    // Every slot is taken: some clients were refused for want of one.
    EXPECT_GT(refused, 0);
    for (const ProcessId& p : stuck) ::kill(p.pid, SIGKILL);
    for (const ProcessId& p : stuck) wait_child(p.pid, std::chrono::milliseconds(2000));
    // Within a few of its one-second rounds the supervisor frees the slots; a
    // client started without lab exec (which would also clean up) then works.
    // Until it has, such a client finds no slot and fails at once.
    o.argv = {fabscope(), "discover", "--json", "-q"};
    o.stdout_path = lab.dir() + "/discover.json";
    o.stderr_path = lab.dir() + "/discover.err";
    RunResult r;
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);;) {
        auto p = spawn(o);
        ASSERT_TRUE(p);
        r = wait_child(p->pid, std::chrono::milliseconds(30000));
        if (r.exit_code == 0 || std::chrono::steady_clock::now() > until) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ASSERT_EQ(r.exit_code, 0) << std::ifstream(o.stderr_path).rdbuf();
    auto snap = nlohmann::json::parse(std::ifstream(o.stdout_path));
    EXPECT_EQ(snap["nodes"].size(), 8u);
}

TEST(DiscoverLab, ErrorsAreOneLineWithExitCodes) {
    CmdResult r = run({fabscope(), "discover", "--load", "/nonexistent.json"});
    EXPECT_EQ(r.exit_code, 2);
    // A truncated snapshot, a wrong version, a file that is not a snapshot:
    // one line naming the file and what is wrong, exit code 2.
    std::string bad = fs::temp_directory_path() / "fabscope-bad-snapshot.json";
    for (const char* text :
         {"{\"format\": \"fabscope-snapshot\", \"version\": 1, \"nodes\": [",
          "{\"format\": \"fabscope-snapshot\", \"version\": 99, \"nodes\": []}", "[1, 2, 3]"}) {
        std::ofstream(bad) << text;
        r = run({fabscope(), "discover", "--load", bad});
        EXPECT_EQ(r.exit_code, 2) << text;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.err.rfind("fabscope: " + bad + ": ", 0), 0u) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    fs::remove(bad);
    r = run({fabscope(), "lab", "exec", "--dir", "/nonexistent-lab", "--", "true"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("no lab in /nonexistent-lab"), std::string::npos) << r.err;
    r = run({fabscope(), "discover", "--bogus-flag"});
    EXPECT_EQ(r.exit_code, 2);
    // Outside the lab there is no device on this machine.
    r = run({fabscope(), "discover"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("no InfiniBand device found"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("mthca0"), std::string::npos) << r.err;  // a CA nobody asked for
    EXPECT_NE(r.err.find("fabscope lab up"), std::string::npos) << r.err;
    r = run({fabscope(), "sweep", "-C", "mlx5_0"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("no InfiniBand device found (-C mlx5_0 asked for)"), std::string::npos)
        << r.err;
}

// One discovery path, one set of deadlines: under a silent switch, discover
// with a short timeout ends in about one deadline chain per wave, and says
// the switch did not answer rather than that a link is missing.
TEST(DiscoverLab, ASilentSpineWithAShortTimeoutEndsQuickly) {
    Lab lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());
    ASSERT_EQ(lab.fault({"silent", "spine02"}).exit_code, 0);
    auto t0 = std::chrono::steady_clock::now();
    CmdResult r = lab.exec({fabscope(), "discover", "-t", "100", "--retries", "1", "--json"},
                           std::chrono::seconds(60));
    auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_EQ(lab.fault({"answer", "spine02"}).exit_code, 0);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LT(took, std::chrono::seconds(5));
    json snap = json::parse(r.out);
    EXPECT_EQ(snap["source"]["method"], "sweep");
    EXPECT_EQ(tier_counts(snap),
              (std::map<std::string, int>{{"host", 16}, {"leaf", 4}, {"spine", 1}}));
    for (const auto& f : snap["findings"]) {
        EXPECT_EQ(f["kind"], "unreachable") << f.dump();
        EXPECT_EQ(f["evidence"]["cause"], "silent") << f.dump();
    }
    EXPECT_EQ(snap["findings"].size(), 4u);  // one per leaf's cable to the silent spine
}

// Ctrl-C (SIGINT to the real process) during a discovery held up by a silent
// switch and long deadlines: exit 130 within the deadline in flight, the
// snapshot so far written and marked incomplete.
TEST(DiscoverLab, CtrlCWritesTheSnapshotSoFarMarkedIncomplete) {
    Lab lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    ASSERT_TRUE(lab.up());
    ASSERT_EQ(lab.fault({"silent", "spine02"}).exit_code, 0);
    for (const char* cmd : {"discover", "sweep"}) {
        std::string out = lab.dir() + "-int-" + cmd + ".json";
        SpawnOptions o;
        o.argv = {fabscope(), "lab",  "exec",      "--dir", lab.dir(), "--", fabscope(), cmd,
                  "-t",       "3000", "--retries", "5",     "-v",      "-o", out};
        o.stderr_path = out + ".err";
        auto child = spawn(o);
        ASSERT_TRUE(child);
        // The sweep has begun, and soon waits on spine02 for seconds.
        ASSERT_TRUE(wait_for_text(o.stderr_path, "Sweeping: topology")) << o.stderr_path;
        auto t0 = std::chrono::steady_clock::now();
        ::kill(child->pid, SIGINT);  // to `lab exec`, which passes it on
        RunResult res = wait_child(child->pid, std::chrono::milliseconds(20000));
        EXPECT_EQ(res.exit_code, 130) << cmd;
        // The attempt in flight ends within its 3 s deadline; no retries (3+6+12+... s).
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << cmd;
        json snap = json::parse(std::ifstream(out));
        EXPECT_EQ(snap["source"]["complete"], false) << cmd;
        EXPECT_EQ(snap["source"]["interrupted"], true) << cmd;
        EXPECT_GE(snap["nodes"].size(), 1u) << cmd;
        for (const auto& f : snap["findings"]) EXPECT_NE(f["kind"], "query_failed") << f.dump();
        std::remove(out.c_str());
    }
    ASSERT_EQ(lab.fault({"answer", "spine02"}).exit_code, 0);
}

}  // namespace
}  // namespace fabscope::labtest
