// `fabscope health` run as a process on the synthetic sysfs trees of
// tests/fixtures/host: exit codes, the one line on stderr, --json against
// docs/health.schema.json, the state file between runs, and bad input.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;
using labtest::CmdResult;
using labtest::fabscope;
using labtest::run;

class HealthCli : public ::testing::Test {
  protected:
    CmdResult health(const std::string& t, std::vector<std::string> extra = {}) {
        std::vector<std::string> argv{fabscope(),     "health",
                                      "--sysfs-root", labtest::fixture("host/" + t),
                                      "--state",      scratch_.path("state.json")};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return run(argv, std::chrono::seconds(30));
    }
    labtest::ScratchDir scratch_{"fabscope-health"};
};

TEST_F(HealthCli, HealthyTreeExitsZero) {
    auto r = health("healthy");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");  // stdout is for --json
    EXPECT_NE(r.err.find("fabscope health: healthy (2 device(s), 2 port(s))\n"), std::string::npos)
        << r.err;
    EXPECT_TRUE(fs::exists(scratch_.path("state.json")));
}

TEST_F(HealthCli, BrokenTreesExitOneWithOneLineSaying) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"pcie-x8", "mlx5_0 PCIe 0000:19:00.0 downtrained to x8 (max x16)"},
        {"no-rocev2", "mlx5_1 port 1: no RoCE v2 GID (4 GID(s) in the table)"},
        {"port-down", "mlx5_0 port 1 is DOWN (Polling), not ACTIVE"},
        {"slow-port",
         "mlx5_2 port 1 at 4X EDR (100 Gb/s), expected 4X HDR (majority of 4 active port(s))"},
    };
    for (const auto& [t, reason] : cases) {
        auto r = health(t, {"--no-state"});
        EXPECT_EQ(r.exit_code, 1) << t;
        EXPECT_EQ(r.err, "fabscope health: " + reason + "\n") << t;
        EXPECT_EQ(r.out, "") << t;
    }
}

TEST_F(HealthCli, JsonFollowsTheSchema) {
    std::vector<std::string> outs;
    for (const char* t : {"healthy", "pcie-x8", "slow-port"}) {
        auto r = health(t, {"--json", "--no-state"});
        EXPECT_EQ(r.exit_code, std::string(t) == "healthy" ? 0 : 1) << t << r.err;
        outs.push_back(r.out);
    }
    for (const auto& e : testing::texts_schema_errors(outs, "health.schema.json"))
        ADD_FAILURE() << e;
    auto doc = nlohmann::json::parse(outs[1]);
    EXPECT_EQ(doc["healthy"], false);
    EXPECT_EQ(doc["reason"], "mlx5_0 PCIe 0000:19:00.0 downtrained to x8 (max x16)");
    EXPECT_EQ(doc["inventory"]["devices"][0]["pci"]["current_link_width"], 8);
    EXPECT_LT(doc["elapsed_ms"].get<double>(), 1000.0);
}

TEST_F(HealthCli, RisingCountersSinceTheLastRunFail) {
    ASSERT_EQ(health("healthy").exit_code, 0);
    auto r = health("errors-rising");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("mlx5_0 port 1: error counters rose since "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("symbol_error +57, link_downed +2"), std::string::npos) << r.err;
    // The state now holds the new values: no further rise, healthy again.
    EXPECT_EQ(health("errors-rising").exit_code, 0);
    // A damaged state file is a warning and a new baseline, not a failed node.
    std::ofstream(scratch_.path("state.json"), std::ios::trunc) << "{ not json";
    r = health("healthy", {"-v"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("warning state:"), std::string::npos) << r.err;
}

TEST_F(HealthCli, ExpectationsFromFiles) {
    std::string expect = scratch_.write("h.yaml",
                                        "fabscope_health: 1\ndevices: [mlx5_0, mlx5_1, mlx5_2]\n"
                                        "expect: {width: 4X, speed: HDR}\n");
    auto r = health("healthy", {"--no-state", "--expect", expect});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "fabscope health: RDMA device mlx5_2 is missing (+1 more)\n");
    std::string plan =
        scratch_.write("plan.yaml", "fabscope_plan: 1\nexpect: {width: 4X, speed: NDR}\n");
    r = health("healthy", {"--no-state", "--plan", plan});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("expected 4X NDR (--plan " + plan + ")"), std::string::npos) << r.err;
    // A plan of cables only: this host's planned port is named, and its
    // cable went unchecked (a fixture tree has no module to read).
    plan =
        scratch_.write("cables.yaml",
                       "fabscope_plan: 1\nlinks:\n"
                       "  - [n1 mlx5_0, 1, leaf01, 1, {cable: {part_number: MCP1650-H002E26}}]\n"
                       "  - [n2 mlx5_0, 1, leaf01, 2, {cable: {part_number: MCP1650-H002E26}}]\n");
    r = health("healthy", {"--no-state", "--plan", plan, "--node-name", "n1", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const auto& e : testing::text_schema_errors(r.out, "health.schema.json"))
        ADD_FAILURE() << e;
    size_t unchecked = 0;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& f : doc["findings"]) {
        if (f["check"] != "module") continue;
        ++unchecked;
        EXPECT_EQ(f["subject"], "mlx5_0/1") << f.dump();
        EXPECT_EQ(f["severity"], "warning") << f.dump();
        EXPECT_NE(f["message"].get<std::string>().find("MCP1650-H002E26 (--plan " + plan +
                                                       ") was not checked"),
                  std::string::npos)
            << f.dump();
    }
    EXPECT_EQ(unchecked, 1u) << r.out;
}

TEST_F(HealthCli, BadInputIsExitTwoAndPermissionThree) {
    auto r = run({fabscope(), "health", "--sysfs-root", scratch_.path("nowhere"), "--no-state"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
    std::string bad = scratch_.write("bad.yaml", "fabscope_health: 1\nexpect: {width: 3X}\n");
    r = health("healthy", {"--expect", bad});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(bad + ":2:17: width"), std::string::npos) << r.err;
    std::string plan = scratch_.write("plan.yaml", "fabscope_plan: 1\n");
    r = health("healthy", {"--plan", plan});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no link rate"), std::string::npos) << r.err;
    plan = scratch_.write(
        "cable.yaml", "fabscope_plan: 1\nlinks:\n  - [n1, 1, leaf01, 1, {cable: {length_m: 0}}]\n");
    r = health("healthy", {"--plan", plan});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(plan + ":3:"), std::string::npos) << r.err;
    // A state folder that cannot be made (its parent is a file).
    std::string file = scratch_.write("file", "x");
    r = run({fabscope(), "health", "--sysfs-root", labtest::fixture("host/healthy"), "--state",
             file + "/s.json"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    // --drain whose scontrol cannot run.
    r = health("pcie-x8", {"--no-state", "--drain", "--node-name", "n1", "--scontrol",
                           scratch_.path("no-scontrol")});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("--drain: cannot run"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fabscope
