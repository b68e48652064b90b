// fabscope validate against the simulated lab: each maintenance mistake
// gives exactly its finding and exit code 1; a clean fabric gives none and 0.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "lab_harness.h"
#include "schema_check.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class ValidateLab : public ::testing::Test {
  protected:
    void SetUp() override {
        lab_ = std::make_unique<Lab>(
            std::vector<std::string>{"--spines", "2", "--leaves", "4", "--hosts-per-leaf", "4"});
        ASSERT_TRUE(lab_->up());
        good_ = lab_->dir() + "-good.json";
        plan_ = lab_->dir() + "-plan.yaml";
        ASSERT_EQ(lab_->exec({fabscope(), "sweep", "-q", "-o", good_}).exit_code, 0);
        CmdResult p = run({fabscope(), "plan", "--from", good_, "-o", plan_, "-q"});
        ASSERT_EQ(p.exit_code, 0) << p.err;
    }
    void TearDown() override {
        lab_.reset();
        std::remove(good_.c_str());
        std::remove(plan_.c_str());
    }

    struct Outcome {
        int exit_code;
        json report;
        std::vector<std::string> kinds;
        std::string summary;
    };
    Outcome validate(std::vector<std::string> extra = {}) {
        std::vector<std::string> argv{fabscope(),   "validate", "--plan", plan_,
                                      "--interval", "1s",       "--json"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        CmdResult r = lab_->exec(argv);
        for (const auto& e : fabscope::testing::text_schema_errors(r.out, "validation.schema.json"))
            ADD_FAILURE() << "validate --json: " << e;
        Outcome o{r.exit_code, json::parse(r.out.empty() ? "{}" : r.out), {}, r.err};
        for (const auto& f : o.report["findings"]) o.kinds.push_back(f["kind"]);
        std::sort(o.kinds.begin(), o.kinds.end());
        return o;
    }
    void fault(std::vector<std::string> words) { ASSERT_EQ(lab_->fault(words).exit_code, 0); }
    /// The report validate wrote to `out`, checked against its schema, then removed.
    static json written_report(const std::string& out) {
        const std::string text = slurp(out);
        for (const auto& e : fabscope::testing::text_schema_errors(text, "validation.schema.json"))
            ADD_FAILURE() << "validate -o: " << e;
        std::remove(out.c_str());
        return json::parse(text.empty() ? "{}" : text);
    }
    /// `validate --plan --interval INTERVAL -v -o OUT` started, and past its
    /// first reading (it waits out the interval): the time to inject a fault.
    /// 0 if it did not start; a test waits for the pid it gets either way.
    pid_t validate_in_its_interval(const std::string& out, const std::string& interval) {
        SpawnOptions o;
        o.argv = {fabscope(),   "lab",      "exec",     "--dir",  lab_->dir(),
                  "--",         fabscope(), "validate", "--plan", plan_,
                  "--interval", interval,   "-v",       "-o",     out};
        o.stderr_path = out + ".err";
        auto child = spawn(o);
        if (!child) {
            ADD_FAILURE() << "validate did not start: " << child.error().message;
            return 0;
        }
        EXPECT_TRUE(wait_for_text(o.stderr_path, "Reading the counters again")) << o.stderr_path;
        return child->pid;
    }

    std::unique_ptr<Lab> lab_;
    std::string good_;
    std::string plan_;
};

/// The findings of a report by kind, then by the first port's "node[port]".
std::map<std::string, std::map<std::string, json>> by_kind_and_port(const json& report) {
    std::map<std::string, std::map<std::string, json>> out;
    for (const json& f : report["findings"]) {
        const json& w = f["where"][0];
        std::string at = fmt::format("{}[{}]", w["node"].get<std::string>(), w["port"].get<int>());
        if (f["kind"] == "counter_rising") at += " " + f["evidence"]["counter"].get<std::string>();
        out[f["kind"]][at] = f;
    }
    return out;
}

TEST_F(ValidateLab, CleanFabric) {
    Outcome o = validate();
    EXPECT_EQ(o.exit_code, 0) << o.summary;
    EXPECT_TRUE(o.kinds.empty()) << o.report["findings"].dump(1);
    EXPECT_EQ(o.report["result"], "pass");
    EXPECT_NE(o.summary.find("PASS"), std::string::npos);
    // And against the baseline snapshot instead of the plan.
    CmdResult r =
        lab_->exec({fabscope(), "validate", "--baseline", good_, "--interval", "1s", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(ValidateLab, OneLeafSpineLinkDown) {
    fault({"link-down", "leaf03[5]"});
    Outcome o = validate();
    EXPECT_EQ(o.exit_code, 1);
    ASSERT_EQ(o.kinds, std::vector<std::string>{"link_down"}) << o.report["findings"].dump(1);
    EXPECT_EQ(o.report["findings"][0]["summary"],
              "leaf03[5] <-> spine01[3] is down (Down/Polling, Down/Polling)");
}

TEST_F(ValidateLab, OneLinkAt1X) {
    fault({"width", "leaf02[6]", "1x"});
    Outcome o = validate();
    EXPECT_EQ(o.exit_code, 1);
    ASSERT_EQ(o.kinds, std::vector<std::string>{"degraded_link"}) << o.report["findings"].dump(1);
    EXPECT_EQ(o.report["findings"][0]["evidence"]["width"], "1X");
    EXPECT_EQ(o.report["findings"][0]["evidence"]["planned_width"], "4X");
}

TEST_F(ValidateLab, OneLinkAtALowerSpeed) {
    fault({"speed", "leaf04[5]", "edr"});
    Outcome o = validate();
    EXPECT_EQ(o.exit_code, 1);
    ASSERT_EQ(o.kinds, std::vector<std::string>{"degraded_link"}) << o.report["findings"].dump(1);
    EXPECT_EQ(o.report["findings"][0]["evidence"]["speed"], "EDR");
}

TEST_F(ValidateLab, TwoCablesSwapped) {
    fault({"swap", "leaf01[5]", "leaf01[6]"});
    Outcome o = validate();
    EXPECT_EQ(o.exit_code, 1);
    ASSERT_EQ(o.kinds, std::vector<std::string>{"cables_swapped"}) << o.report["findings"].dump(1);
    EXPECT_EQ(o.report["findings"][0]["summary"],
              "cables swapped: leaf01[5] goes to spine02[1] (planned spine01[1]), leaf01[6] goes "
              "to spine01[1] "
              "(planned spine02[1])");
}

TEST_F(ValidateLab, SymbolErrorsRisingDuringTheInterval) {
    fault({"counter", "leaf03[2]", "SymbolErrorCounter=100"});
    // The counter climbs while validate waits between its two readings.
    const std::string out = lab_->dir() + "-rising.json";
    const pid_t pid = validate_in_its_interval(out, "4s");
    ASSERT_NE(pid, 0);
    fault({"counter", "leaf03[2]", "SymbolErrorCounter=500"});
    RunResult r = wait_child(pid, 60000ms);
    EXPECT_EQ(r.exit_code, 1);
    json report = written_report(out);
    // 400 symbol errors in 4 s at 4X HDR are also a bit error rate of ~5e-10.
    ASSERT_EQ(report["findings"].size(), 2u) << report["findings"].dump(1);
    auto found = by_kind_and_port(report);
    ASSERT_EQ(found["bit_error_rate"].count("leaf03[2]"), 1u) << report["findings"].dump(1);
    ASSERT_EQ(found["counter_rising"].count("leaf03[2] SymbolErrorCounter"), 1u);
    const json& f = found["counter_rising"]["leaf03[2] SymbolErrorCounter"];
    EXPECT_EQ(f["evidence"]["delta"], 400);
    EXPECT_EQ(f["where"][0]["node"], "leaf03");
    EXPECT_EQ(f["where"][0]["port"], 2);
}

TEST_F(ValidateLab, ErrorDetailsAndTheBitErrorRateAsPerfqueryReadsThem) {
    const std::string out = lab_->dir() + "-details.json";
    const pid_t pid = validate_in_its_interval(out, "4s");
    ASSERT_NE(pid, 0);
    // As a real port counts them: each cause in its total as well.
    fault({"counter", "leaf03[2]", "PortRcvErrors=40",
           "PortRcvErrorDetails.PortLocalPhysicalErrors=40"});
    fault({"counter", "spine02[3]", "PortXmitDiscards=6",
           "PortXmitDiscardDetails.PortNeighborMTUDiscards=6"});
    fault({"counter", "leaf01[2]", "SymbolErrorCounter=1"});     // one error: no bad link
    fault({"counter", "leaf04[3]", "SymbolErrorCounter=5000"});  // ~6e-9 at 4X HDR over 4 s
    RunResult r = wait_child(pid, 60000ms);
    EXPECT_EQ(r.exit_code, 1);
    json report = written_report(out);
    auto found = by_kind_and_port(report);
    auto& rising = found["counter_rising"];
    ASSERT_TRUE(rising.count("leaf03[2] PortLocalPhysicalErrors")) << report["findings"].dump(1);
    ASSERT_TRUE(rising.count("spine02[3] PortNeighborMTUDiscards")) << report["findings"].dump(1);
    const json& phys = rising["leaf03[2] PortLocalPhysicalErrors"];
    const json& mtu = rising["spine02[3] PortNeighborMTUDiscards"];
    EXPECT_EQ(phys["evidence"]["delta"], 40);
    EXPECT_NE(phys["summary"].get<std::string>().find("the cable"), std::string::npos) << phys;
    EXPECT_EQ(mtu["evidence"]["delta"], 6);
    EXPECT_EQ(mtu["severity"], "error");
    EXPECT_NE(mtu["summary"].get<std::string>().find("MTU mismatch"), std::string::npos) << mtu;
    // perfquery -E / -D read the same counters from the same simulator.
    auto perfquery = [&](const json& f, const char* flag) {
        const json& w = f["where"][0];
        CmdResult pq = lab_->exec({"perfquery", flag, std::to_string(w["lid"].get<int>()),
                                   std::to_string(w["port"].get<int>())},
                                  std::chrono::seconds(30));
        EXPECT_EQ(pq.exit_code, 0) << pq.err;
        std::printf("perfquery %s %d %d:\n%s", flag, w["lid"].get<int>(), w["port"].get<int>(),
                    pq.out.c_str());
        return parse_perfquery(pq.out);
    };
    EXPECT_EQ(perfquery(phys, "-E")["PortLocalPhysicalErrors"], 40u);
    EXPECT_EQ(perfquery(mtu, "-D")["PortNeighborMTUDiscards"], 6u);
    // The bit error rate: named for the port with thousands of errors, not
    // for the one with a single error (whose rise is still a counter_rising).
    auto& ber = found["bit_error_rate"];
    EXPECT_EQ(ber.size(), 1u) << report["findings"].dump(1);
    ASSERT_TRUE(ber.count("leaf04[3]")) << report["findings"].dump(1);
    const json& e = ber["leaf04[3]"]["evidence"];
    EXPECT_EQ(e["symbol_errors"], 5000);
    EXPECT_GT(e["ber_lower_95"].get<double>(), 1e-12);
    EXPECT_NEAR(e["ber"].get<double>(),
                5000 / (e["line_gbps"].get<double>() * 1e9 * e["interval_s"].get<double>()), 1e-15);
    EXPECT_TRUE(rising.count("leaf01[2] SymbolErrorCounter")) << report["findings"].dump(1);
    std::printf("validate's findings:\n");
    for (const json& f : report["findings"])
        std::printf("  %s\n", f["summary"].get<std::string>().c_str());
    for (const json& c : report["check_list"])
        if (c["id"] == "bit_error_rate")
            std::printf("check: %s\n", c["detail"].get<std::string>().c_str());
}

TEST_F(ValidateLab, XmitWaitDuringTheIntervalIsACongestionTreeRoot) {
    // The same detectors as `fabscope congestion`: a port waiting toward a
    // host is the root of a tree, not a bare xmit_wait finding.
    const std::string out = lab_->dir() + "-wait.json";
    const pid_t pid = validate_in_its_interval(out, "3s");
    ASSERT_NE(pid, 0);
    fault({"counter", "leaf02[3]", "PortXmitWait=3000000000"});
    RunResult r = wait_child(pid, 60000ms);
    EXPECT_EQ(r.exit_code, 1);
    json report = json::parse(std::ifstream(out));
    std::remove(out.c_str());
    ASSERT_EQ(report["findings"].size(), 1u) << report["findings"].dump(1);
    const json& f = report["findings"][0];
    EXPECT_EQ(f["kind"], "congestion_root");
    EXPECT_EQ(f["evidence"]["cause"], "slow_receiver");
    EXPECT_EQ(f["where"][0]["node"], "leaf02");
    EXPECT_EQ(f["where"][0]["port"], 3);
}

TEST_F(ValidateLab, ASaturatedCounter) {
    fault({"counter", "spine02[2]", "SymbolErrorCounter=65535"});
    Outcome o = validate();
    EXPECT_EQ(o.exit_code, 1);
    ASSERT_EQ(o.kinds, std::vector<std::string>{"counter_saturated"})
        << o.report["findings"].dump(1);
    EXPECT_EQ(o.report["findings"][0]["evidence"]["value"], 65535);
}

TEST_F(ValidateLab, AHostMissing) {
    fault({"link-down", "h0006[1]"});
    Outcome o = validate();
    EXPECT_EQ(o.exit_code, 1);
    ASSERT_EQ(o.kinds, std::vector<std::string>{"node_missing"}) << o.report["findings"].dump(1);
    EXPECT_EQ(o.report["findings"][0]["summary"], "host h0006 is missing (planned on leaf02[2])");
}

/// Each JUnit test case as "classname|name", and the failing ones.
std::pair<std::set<std::string>, std::set<std::string>> junit_cases(const std::string& path) {
    std::stringstream ss;
    ss << std::ifstream(path).rdbuf();
    const std::string xml = ss.str();
    std::set<std::string> all;
    std::set<std::string> failing;
    const std::regex kCase(R"re(<testcase classname="([^"]*)" name="([^"]*)"(/?)>)re");
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), kCase);
         it != std::sregex_iterator(); ++it) {
        const std::string key = (*it)[1].str() + "|" + (*it)[2].str();
        all.insert(key);
        const size_t after = static_cast<size_t>(it->position() + it->length());
        if ((*it)[3].str().empty() && xml.compare(after, 16, "\n      <failure ") == 0)
            failing.insert(key);
    }
    return {all, failing};
}

TEST_F(ValidateLab, OneCommandForCiWhoseJunitCasesKeepTheirNamesThroughFaults) {
    const std::string d = lab_->dir();
    CmdResult clean = lab_->exec({fabscope(), "validate", "--plan", plan_, "--interval", "1s", "-q",
                                  "--junit", d + "-clean.xml"});
    ASSERT_EQ(clean.exit_code, 0) << clean.err;
    // The maintenance mistakes of a real window: two uplinks swapped, one
    // at 1X, one down.
    fault({"swap", "leaf01[5]", "leaf01[6]"});
    fault({"width", "leaf02[6]", "1x"});
    fault({"link-down", "leaf03[5]"});
    CmdResult bad = lab_->exec({fabscope(), "validate", "--plan", plan_, "--interval", "1s", "-o",
                                d + "-bad.json", "--snapshot", d + "-bad-fabric.json", "--junit",
                                d + "-bad.xml", "--html", d + "-bad.html", "--md", d + "-bad.md"});
    ASSERT_EQ(bad.exit_code, 1) << bad.err;
    for (const char* f : {"-bad-fabric.json", "-bad.html", "-bad.md"})
        EXPECT_TRUE(std::filesystem::is_regular_file(d + f)) << f;
    EXPECT_TRUE(fabscope::testing::schema_errors(json::parse(std::ifstream(d + "-bad-fabric.json")),
                                                 "snapshot.schema.json")
                    .empty());
    for (const auto& e : fabscope::testing::schema_errors(
             json::parse(std::ifstream(d + "-bad.json")), "validation.schema.json"))
        ADD_FAILURE() << "validate -o: " << e;
    auto [clean_all, clean_failing] = junit_cases(d + "-clean.xml");
    auto [bad_all, bad_failing] = junit_cases(d + "-bad.xml");
    EXPECT_EQ(clean_all, bad_all);  // the same cases, in the same suites
    EXPECT_TRUE(clean_failing.empty());
    EXPECT_EQ(bad_failing, (std::set<std::string>{"fabscope.links|leaf01[5] -- spine01[1]",
                                                  "fabscope.links|leaf01[6] -- spine02[1]",
                                                  "fabscope.links|leaf02[6] -- spine02[2]",
                                                  "fabscope.links|leaf03[5] -- spine01[3]",
                                                  "fabscope.validation|cabling against the plan"}));
    // `report` on the same two files counts what the XML counts.
    CmdResult r = run({fabscope(), "report", d + "-bad-fabric.json", d + "-bad.json", "--format",
                       "junit", "-o", d + "-report.xml"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("(FAIL, 5 of " + std::to_string(bad_all.size()) +
                         " test cases failing; 3 findings)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(junit_cases(d + "-report.xml"), junit_cases(d + "-bad.xml"));
    // The good snapshot beside the bad validation: joined, with a warning.
    r = run({fabscope(), "report", good_, d + "-bad.json", "-o", d + "-mixed.html"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: the snapshot (22 nodes, 24 links"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is not the fabric the validation checked (22 nodes, 23 links"),
              std::string::npos)
        << r.err;
}

TEST_F(ValidateLab, BadInputsAreExitTwoAndInterruptKeepsTheReport) {
    std::string bad = lab_->dir() + "-bad.yaml";
    std::ofstream(bad) << "fabscope_plan: 1\nlinks:\n  - [leaf01, 5]\n";
    CmdResult r = lab_->exec({fabscope(), "validate", "--plan", bad});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "fabscope: " + bad +
                         ":3:5: a link is [node, port, node, port] or [node, port, node, port, "
                         "{width: .., speed: .., cable: {..}}]\n");
    r = lab_->exec({fabscope(), "validate", "--interval", "soon"});
    EXPECT_EQ(r.exit_code, 2);
    std::remove(bad.c_str());

    // Ctrl-C while waiting for the second reading: exit 130, the report of the first is written.
    std::string out = lab_->dir() + "-int.json";
    SpawnOptions o;
    o.argv = {fabscope(), "lab",        "exec", "--dir", lab_->dir(), "--", fabscope(),
              "validate", "--interval", "60s",  "-v",    "-o",        out};
    o.stderr_path = out + ".err";
    auto child = spawn(o);
    ASSERT_TRUE(child);
    ASSERT_TRUE(wait_for_text(o.stderr_path, "Reading the counters again")) << o.stderr_path;
    ::kill(child->pid, SIGINT);  // to `lab exec`, which passes it on
    RunResult res = wait_child(child->pid, 20000ms);
    EXPECT_EQ(res.exit_code, 130);
    json report = json::parse(std::ifstream(out));
    EXPECT_EQ(report["result"], "interrupted");
    EXPECT_EQ(report["nodes"], 22);
    std::remove(out.c_str());
}

TEST_F(ValidateLab, InterruptDuringTheSweepKeepsTheReport) {
    // Ctrl-C while the sweep waits on a silent spine (long deadlines): the
    // report of what was read is written, marked interrupted, exit 130.
    ASSERT_EQ(lab_->fault({"silent", "spine02"}).exit_code, 0);
    std::string out = lab_->dir() + "-int-sweep.json";
    SpawnOptions o;
    o.argv = {fabscope(), "lab",  "exec",      "--dir", lab_->dir(), "--", fabscope(), "validate",
              "-t",       "3000", "--retries", "5",     "-v",        "-o", out};
    o.stderr_path = out + ".err";
    auto child = spawn(o);
    ASSERT_TRUE(child);
    ASSERT_TRUE(wait_for_text(o.stderr_path, "Sweeping: topology")) << o.stderr_path;
    ::kill(child->pid, SIGINT);
    RunResult res = wait_child(child->pid, 20000ms);
    ASSERT_EQ(lab_->fault({"answer", "spine02"}).exit_code, 0);
    EXPECT_EQ(res.exit_code, 130);
    json report = json::parse(std::ifstream(out));
    EXPECT_EQ(report["result"], "interrupted");
    EXPECT_GE(report["nodes"].get<int>(), 1);
    std::remove(out.c_str());
}

TEST(ValidateLab648, TenSecondIntervalOnAClean648HostFabric) {
    Lab lab({"--spines", "18", "--leaves", "36", "--hosts-per-leaf", "18"});
    ASSERT_TRUE(lab.up());
    std::string good = lab.dir() + "-good.json";
    ASSERT_EQ(lab.exec({fabscope(), "sweep", "-q", "--no-counters", "-o", good}).exit_code, 0);
    CmdResult r =
        lab.exec({fabscope(), "validate", "--baseline", good, "--interval", "10s", "--json", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json report = json::parse(r.out);
    EXPECT_EQ(report["result"], "pass");
    EXPECT_GE(report["interval_s"].get<double>(), 9.9);
    EXPECT_EQ(report["nodes"], 702);
    std::remove(good.c_str());
}

}  // namespace
}  // namespace fabscope::labtest
