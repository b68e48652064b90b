// `fabscope congestion --before DIR --after DIR --interval D` on the synthetic
// RoCE fixtures (tests/fixtures/roce-congestion): exit codes, the findings
// that name the host, priority and counter, and the JSON against
// docs/congestion.schema.json.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope {
namespace {

using labtest::CmdResult;
using labtest::fabscope;
using labtest::run;
using nlohmann::json;

const std::string kFixtures = std::string(FABSCOPE_SOURCE_DIR) + "/tests/fixtures/roce-congestion/";

CmdResult replay(const std::string& scenario, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{fabscope(),   "congestion",
                                  "--before",   kFixtures + scenario + "/before",
                                  "--after",    kFixtures + scenario + "/after",
                                  "--interval", "10s",
                                  "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv, std::chrono::seconds(30));
}

json checked(const CmdResult& r) {
    for (const auto& e : testing::text_schema_errors(r.out, "congestion.schema.json"))
        ADD_FAILURE() << e;
    return json::parse(r.out);
}

TEST(RoceCongestionCli, CleanFixtureExitsZero) {
    CmdResult r = replay("clean");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json doc = checked(r);
    EXPECT_EQ(doc["result"], "pass");
    EXPECT_EQ(doc["findings"].size(), 0u);
    EXPECT_EQ(doc["roce"]["hosts"][0]["host"], "h1");
    EXPECT_EQ(doc["roce"]["hosts"][0]["ports"][0]["netdev"], "ens1f0np0");
    EXPECT_EQ(doc["roce"]["hosts"][0]["dcb"]["ens1f0np0"]["roce_priority"], 3);
    EXPECT_DOUBLE_EQ(doc["interval_s"].get<double>(), 10.0);
    EXPECT_NE(r.err.find("CLEAR"), std::string::npos) << r.err;
}

// --sysfs-root DIR stands for / (DIR/sys/class/infiniband), as it does for
// `health`: the host fixture trees serve both commands.
TEST(RoceCongestionCli, SysfsRootIsTheTreeHealthReads) {
    CmdResult r = run({fabscope(), "congestion", "--roce", "--sysfs-root",
                       std::string(FABSCOPE_SOURCE_DIR) + "/tests/fixtures/host/healthy",
                       "--interval", "100ms", "--json"},
                      std::chrono::seconds(30));
    ASSERT_FALSE(r.out.empty()) << r.err;
    json doc = checked(r);
    ASSERT_EQ(doc["roce"]["hosts"].size(), 1u) << r.out;
    std::set<std::string> ports;
    for (const json& p : doc["roce"]["hosts"][0]["ports"]) ports.insert(p["port"]);
    // mlx5_0 is InfiniBand in that tree; mlx5_1 is its RoCE port.
    EXPECT_EQ(ports, std::set<std::string>{"mlx5_1/1"}) << r.out;
}

TEST(RoceCongestionCli, PfcStormNamesSourceAndVictim) {
    CmdResult r = replay("pfc-storm");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    json doc = checked(r);
    EXPECT_EQ(doc["result"], "fail");
    std::map<std::string, std::string> host_of;
    for (const json& f : doc["findings"]) {
        if (f["kind"] == "pause_source" || f["kind"] == "pause_victim")
            host_of[f["kind"]] = f["evidence"]["host"];
    }
    EXPECT_EQ(host_of["pause_source"], "h1");
    EXPECT_EQ(host_of["pause_victim"], "h2");
    EXPECT_EQ(doc["findings"][0]["kind"], "pfc_storm");
    EXPECT_EQ(doc["findings"][0]["evidence"]["priority"], 3);
    EXPECT_NE(r.err.find("h2 ens1f0np0 priority 3 only receives pause frames"), std::string::npos)
        << r.err;
}

TEST(RoceCongestionCli, EcnAndLossFixtures) {
    CmdResult ecn = replay("ecn-no-cnp");
    EXPECT_EQ(ecn.exit_code, 1) << ecn.err;
    EXPECT_EQ(checked(ecn)["findings"][0]["kind"], "ecn_without_cnp");
    CmdResult loss = replay("lossless-loss");
    EXPECT_EQ(loss.exit_code, 1) << loss.err;
    json doc = checked(loss);
    std::set<std::string> kinds;
    for (const json& f : doc["findings"]) kinds.insert(f["kind"]);
    EXPECT_EQ(kinds, (std::set<std::string>{"pfc_off_on_roce_priority", "loss_on_lossless_class"}));
}

TEST(RoceCongestionCli, ThresholdsFileRaisesTheLimits) {
    labtest::ScratchDir dir("roce-thresholds");
    std::string t = dir.write("t.yaml",
                              "fabscope_thresholds: 1\nroce: {pause_share_warn: 0.7, "
                              "pause_share_error: 0.9, pause_frames_per_s: 1000000}\n");
    // Storm warning events still rise: that finding stays, the share ones go.
    CmdResult r = replay("pfc-storm", {"--thresholds", t});
    json doc = checked(r);
    ASSERT_EQ(doc["findings"].size(), 1u) << r.err;
    EXPECT_TRUE(
        doc["findings"][0]["evidence"]["counters"].contains("tx_pause_storm_warning_events"));
    EXPECT_EQ(doc["thresholds"]["roce"]["pause_share_warn"], 0.7);
}

TEST(RoceCongestionCli, BadSavedReadingsAreUsageErrors) {
    labtest::ScratchDir dir("roce-bad");
    std::filesystem::create_directories(dir.path("empty"));
    CmdResult r = run({fabscope(), "congestion", "--before", dir.path("empty"), "--after",
                       kFixtures + "clean/after", "--interval", "10s"},
                      std::chrono::seconds(30));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no saved reading"), std::string::npos) << r.err;
    r = run({fabscope(), "congestion", "--before", kFixtures + "clean/before"},
            std::chrono::seconds(30));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--before and --after go together"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fabscope
