// fabscope congestion against the simulated lab. ibsim has no traffic model,
// so congestion is faked the way the simulator allows: PerformanceSet raises
// PortXmitWait (`lab fault counter`) on several spine ports toward one leaf
// and on that leaf's port toward one host while `fabscope congestion` waits
// between its two readings. The host-facing port must come out as the root,
// the spine ports as its victims; perfquery (infiniband-diags) reads the same
// counter. A node made silent before the second reading is a finding, in
// congestion and in validate. Per VL, as far as the lab goes: ibsim answers
// PortVLXmitWaitCounters on every port (checked against perfquery); one port
// is made to refuse it by dropping that attribute: per-VL not supported, no
// finding.

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "lab_harness.h"
#include "schema_check.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class CongestionLab : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        lab_ = new Lab({"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
    }
    static void TearDownTestSuite() {
        delete lab_;
        lab_ = nullptr;
    }
    void SetUp() override { ASSERT_TRUE(lab_->up()); }

    struct Outcome {
        int exit_code = -1;
        json report;
        std::string text;
    };
    /// `fabscope congestion --interval 3s --json` (or `command`, writing
    /// `schema`'s JSON), with `during` applied 1.5 s in (after the first
    /// reading, before the second).
    Outcome measure(const std::vector<std::vector<std::string>>& during,
                    const std::vector<std::string>& command = {"congestion", "--interval", "3s",
                                                               "--json", "--no-color"},
                    const std::string& schema = "congestion.schema.json") {
        const std::string out = lab_->dir() + "-congestion.json";
        const std::string err = lab_->dir() + "-congestion.txt";
        SpawnOptions o;
        o.argv = {fabscope(), "lab", "exec", "--dir", lab_->dir(), "--", fabscope()};
        o.argv.insert(o.argv.end(), command.begin(), command.end());
        o.argv.push_back("-v");  // says when it waits for the second reading
        o.stdout_path = out;
        o.stderr_path = err;
        auto child = spawn(o);
        EXPECT_TRUE(child);
        if (!child) return {};
        EXPECT_TRUE(wait_for_text(err, "Reading the counters again")) << err;
        for (const auto& words : during) EXPECT_EQ(lab_->fault(words).exit_code, 0);
        RunResult r = wait_child(child->pid, 60000ms);
        Outcome res;
        res.exit_code = r.exit_code;
        std::ifstream j(out);
        std::stringstream t;
        t << std::ifstream(err).rdbuf();
        res.text = t.str();
        try {
            res.report = json::parse(j);
            for (const auto& e : fabscope::testing::schema_errors(res.report, schema))
                ADD_FAILURE() << e;
        } catch (const json::exception& e) {
            ADD_FAILURE() << "no JSON report: " << e.what() << "\n" << res.text;
        }
        std::remove(out.c_str());
        std::remove(err.c_str());
        return res;
    }

    static Lab* lab_;
};
Lab* CongestionLab::lab_ = nullptr;

// Ctrl-C while waiting for the second reading: exit 130 and the report of
// what was read (no rates), marked interrupted, as sweep and validate do; it
// wrote nothing before.
TEST_F(CongestionLab, CtrlCBeforeTheSecondReadingKeepsTheReportMarkedInterrupted) {
    const std::string out = lab_->dir() + "-int.json";
    const std::string err = lab_->dir() + "-int.txt";
    SpawnOptions o;
    o.argv = {fabscope(), "lab",        "exec",       "--dir", lab_->dir(), "--",
              fabscope(), "congestion", "--interval", "60s",   "--json",    "-v"};
    o.stdout_path = out;
    o.stderr_path = err;
    auto child = spawn(o);
    ASSERT_TRUE(child);
    ASSERT_TRUE(wait_for_text(err, "Reading the counters again")) << err;
    ::kill(child->pid, SIGINT);  // to `lab exec`, which passes it on
    RunResult r = wait_child(child->pid, 20000ms);
    EXPECT_EQ(r.exit_code, 130);
    json report = json::parse(std::ifstream(out));
    EXPECT_EQ(report["result"], "interrupted");
    EXPECT_EQ(report["interrupted"], true);
    EXPECT_TRUE(report["trees"].empty());
    for (const auto& e : fabscope::testing::schema_errors(report, "congestion.schema.json"))
        ADD_FAILURE() << e;
    std::remove(out.c_str());
    std::remove(err.c_str());
}

TEST_F(CongestionLab, ATreeTowardOneHostNamesTheHostPortAsRoot) {
    // Toward leaf03 from both spines (spineNN[3]), and leaf03's port to h0010.
    // h0016 refuses the
    // per-VL counters (its PMA Gets of attribute 0x1C = 28 are dropped):
    // per-VL not supported, no finding.
    ASSERT_EQ(lab_->fault({"mad-drop", "h0016[1]", "100", "28"}).exit_code, 0);
    Outcome o =
        measure({{"counter", "spine01[3]", "PortXmitWait=2500000000"},
                 {"counter", "spine02[3]", "PortXmitWait=2000000000"},
                 {"counter", "leaf03[2]", "PortXmitWait=3500000000"},
                 // The root's waiting was on one lane: VL 1 (one SL's traffic).
                 {"counter", "leaf03[2]", "PortVLXmitWaitCounters.PortVLXmitWaitCounters1=40000"}});
    ASSERT_EQ(lab_->fault({"mad-drop", "h0016[1]", "0"}).exit_code, 0);
    std::cerr << o.text;
    EXPECT_EQ(o.exit_code, 1) << o.text;
    const json& trees = o.report["trees"];
    ASSERT_EQ(trees.size(), 1u) << o.report.dump(1);
    EXPECT_EQ(trees[0]["root"]["node"], "leaf03");
    EXPECT_EQ(trees[0]["root"]["port"], 2);
    EXPECT_EQ(trees[0]["cause"], "slow_receiver");
    ASSERT_EQ(trees[0]["victims"].size(), 2u);
    EXPECT_EQ(trees[0]["victims"][0]["node"], "spine01");  // hottest first
    EXPECT_EQ(trees[0]["victims"][0]["port"], 3);
    EXPECT_EQ(trees[0]["victims"][1]["node"], "spine02");
    EXPECT_EQ(trees[0]["victims"][1]["chain"][1]["node"], "leaf03");
    const json& fs = o.report["findings"];
    ASSERT_EQ(fs.size(), 3u) << fs.dump(1);
    EXPECT_EQ(fs[0]["kind"], "congestion_root");  // the root first
    EXPECT_EQ(fs[1]["kind"], "congestion_victim");
    EXPECT_EQ(fs[2]["kind"], "congestion_victim");
    // The human summary names the root before any victim.
    EXPECT_LT(o.text.find("root leaf03[2]"), o.text.find("victim spine01[3]")) << o.text;

    // The same counter through infiniband-diags' perfquery.
    const json& v = trees[0]["victims"][0];
    CmdResult pq = lab_->exec({"perfquery", std::to_string(v["lid"].get<int>()), "3"},
                              std::chrono::seconds(30));
    ASSERT_EQ(pq.exit_code, 0) << pq.err;
    auto counters = parse_perfquery(pq.out);
    ASSERT_TRUE(counters.count("PortXmitWait")) << pq.out;
    EXPECT_EQ(counters["PortXmitWait"], 2500000000u);
    EXPECT_EQ(v["delta_ticks"], 2500000000u);  // from 0 at the sweep's reading

    // Per VL: ibsim answers PortVLXmitWaitCounters; the root's VL 1 rose
    // (and no other lane), as perfquery --vlxmitcounters reads it; the
    // victims' lanes did not.
    const json& root = trees[0]["root"];
    ASSERT_TRUE(root.contains("vl_xmit_wait")) << root.dump(1);
    ASSERT_EQ(root["vl_xmit_wait"].size(), 1u) << root.dump(1);
    EXPECT_EQ(root["vl_xmit_wait"][0]["vl"], 1);
    EXPECT_EQ(root["vl_xmit_wait"][0]["delta_ticks"], 40000);
    EXPECT_FALSE(root.contains("per_vl_supported")) << root.dump(1);
    EXPECT_FALSE(v.contains("vl_xmit_wait")) << v.dump(1);
    EXPECT_NE(o.text.find("VL1 +40000"), std::string::npos) << o.text;
    CmdResult vq =
        lab_->exec({"perfquery", "--vlxmitcounters", std::to_string(root["lid"].get<int>()), "2"},
                   std::chrono::seconds(30));
    ASSERT_EQ(vq.exit_code, 0) << vq.err;
    auto lanes = parse_perfquery(vq.out);
    ASSERT_TRUE(lanes.count("PortVLXmitWait1")) << vq.out;
    EXPECT_EQ(lanes["PortVLXmitWait1"], 40000u) << vq.out;
    EXPECT_EQ(lanes["PortVLXmitWait0"], 0u) << vq.out;
    // ibsim answers the per-VL counters on every port; only h0016 refused them.
    EXPECT_EQ(o.report["per_vl"]["ports_not_supported"], 1) << o.report["per_vl"].dump();
    EXPECT_GT(o.report["per_vl"]["ports_read"].get<int>(), 40) << o.report["per_vl"].dump();
    EXPECT_NE(o.text.find("Per-VL PortXmitWait not supported on 1 of"), std::string::npos)
        << o.text;
}

TEST_F(CongestionLab, ANodeSilentBeforeTheSecondReadingIsAFinding) {
    Outcome o = measure({{"silent", "leaf04"}});
    ASSERT_EQ(lab_->fault({"answer", "leaf04"}).exit_code, 0);
    EXPECT_EQ(o.exit_code, 1) << o.text;
    EXPECT_GT(o.report["ports_unanswered"].get<int>(), 0);
    bool found = false;
    for (const json& f : o.report["findings"]) {
        if (f["kind"] != "counters_unanswered") continue;
        if (f["where"][0]["node"] == "leaf04") found = true;
    }
    EXPECT_TRUE(found) << o.report["findings"].dump(1);
    EXPECT_NE(o.text.find("leaf04:"), std::string::npos) << o.text;
}

TEST_F(CongestionLab, ValidateReportsANodeSilentBeforeItsSecondReading) {
    // validate runs the same readings: a node that stops answering between
    // them is a counters_unanswered finding, not left out of the rates.
    Outcome o = measure({{"silent", "leaf04"}}, {"validate", "--interval", "3s", "--json"},
                        "validation.schema.json");
    ASSERT_EQ(lab_->fault({"answer", "leaf04"}).exit_code, 0);
    EXPECT_EQ(o.exit_code, 1) << o.text;
    EXPECT_GT(o.report["interval_s"].get<double>(), 2.5) << o.report.dump(1);
    bool found = false;
    for (const json& f : o.report["findings"]) {
        if (f["kind"] == "counters_unanswered" && f["where"][0]["node"] == "leaf04") found = true;
    }
    EXPECT_TRUE(found) << o.report["findings"].dump(1);
}

}  // namespace
}  // namespace fabscope::labtest
