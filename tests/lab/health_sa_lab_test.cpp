// fabscope health's sa_path check on the simulated InfiniBand lab: the SA
// path record query from the port to itself, answered by OpenSM, checked
// against saquery's answer to the same question; then, with OpenSM stopped,
// the finding that names the port and the SM LID, and exit code 1.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

json health_json(const CmdResult& r) {
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "health.schema.json"))
        ADD_FAILURE() << "health --json: " << e;
    return json::parse(r.out.empty() ? "{}" : r.out);
}

/// saquery's "name....value" lines of a PathRecord dump.
std::map<std::string, std::string> saquery_fields(const std::string& text) {
    std::map<std::string, std::string> out;
    std::regex line(R"(^\s*([a-z_0-9]+)\.{2,}(\S+))");
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) {
        std::smatch m;
        if (std::regex_search(l, m, line)) out[m[1]] = m[2];
    }
    return out;
}

TEST(HealthSaLab, PathRecordToItselfThenStoppedSm) {
    Lab lab({"--spines", "1", "--leaves", "1", "--hosts-per-leaf", "2"});
    ASSERT_TRUE(lab.up());

    auto t0 = std::chrono::steady_clock::now();
    CmdResult ok =
        lab.exec({fabscope(), "health", "--no-state", "--json"}, std::chrono::seconds(60));
    double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
    json h = health_json(ok);
    ASSERT_EQ(h["sa_path"].size(), 1U) << h.dump(1);
    const json& q = h["sa_path"][0];
    EXPECT_EQ(q["outcome"], "ok") << q.dump();
    EXPECT_EQ(q["device"], "ibsim0");
    const json& port = h["inventory"]["devices"][0]["ports"][0];
    EXPECT_EQ(q["lid"], port["lid"]);
    EXPECT_EQ(q["path"]["slid"], port["lid"]);
    EXPECT_EQ(q["path"]["dlid"], port["lid"]);
    EXPECT_LT(h["elapsed_ms"].get<double>(), 1000.0);
    std::cout << "health (SM up): exit " << ok.exit_code << ", elapsed_ms " << h["elapsed_ms"]
              << ", sa_path elapsed_ms " << q["elapsed_ms"] << ", wall through lab exec " << wall_ms
              << " ms\n";

    // saquery asks the same SA the same question (GetTable, SGID-DGID).
    std::string gid = q["gid"];
    CmdResult sq =
        lab.exec({"saquery", "-p", "--sgid-to-dgid", gid + "-" + gid}, std::chrono::seconds(60));
    ASSERT_EQ(sq.exit_code, 0) << sq.err;
    auto f = saquery_fields(sq.out);
    auto num = [&](const char* k) { return std::stoi(f.at(k), nullptr, 0); };
    ASSERT_TRUE(f.count("slid")) << sq.out;
    EXPECT_EQ(num("slid"), q["path"]["slid"].get<int>());
    EXPECT_EQ(num("dlid"), q["path"]["dlid"].get<int>());
    EXPECT_EQ(num("pkey"), q["path"]["pkey"].get<int>());
    EXPECT_EQ(num("sl"), q["path"]["sl"].get<int>());
    EXPECT_EQ(128 << (num("mtu") & 0x3f), q["path"]["mtu"].get<int>());
    std::cout << "saquery -p: slid " << f["slid"] << " dlid " << f["dlid"] << " mtu " << f["mtu"]
              << " pkey " << f["pkey"] << " sl " << f["sl"] << "; fabscope: " << q["path"].dump()
              << "\n";

    // Stop OpenSM (the lab's own process, by its recorded PID). The port
    // keeps its LID and SM LID; the SA is gone.
    std::ifstream state(lab.dir() + "/state.json");
    int opensm = json::parse(state, nullptr, false)["processes"]["opensm"].value("pid", 0);
    ASSERT_GT(opensm, 0);
    ASSERT_EQ(::kill(opensm, SIGTERM), 0);
    for (int i = 0; i < 100 && ::kill(opensm, 0) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));

    t0 = std::chrono::steady_clock::now();
    CmdResult bad = lab.exec({fabscope(), "health", "--no-state", "--json", "--sa-timeout", "50"},
                             std::chrono::seconds(60));
    wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    json b = health_json(bad);
    ASSERT_EQ(b["sa_path"].size(), 1U);
    EXPECT_EQ(b["sa_path"][0]["outcome"], "no_answer") << b["sa_path"].dump();
    std::string sm_lid = std::to_string(port["sm_lid"].get<int>());
    std::string want = "ibsim0 port 1: no SA path record to itself (SM LID " + sm_lid + ")";
    EXPECT_EQ(b["reason"].get<std::string>().rfind(want, 0), 0U) << b["reason"];
    EXPECT_NE(bad.err.find("fabscope health: " + want), std::string::npos) << bad.err;
    bool found = false;
    for (const auto& x : b["findings"])
        found = found ||
                (x["check"] == "sa_path" && x["subject"] == "ibsim0/1" && x["severity"] == "error");
    EXPECT_TRUE(found) << b["findings"].dump(1);
    EXPECT_LT(b["elapsed_ms"].get<double>(), 1000.0);
    std::cout << "health (SM stopped): exit " << bad.exit_code << ", elapsed_ms " << b["elapsed_ms"]
              << ", wall " << wall_ms << " ms, reason: " << b["reason"] << "\n";
}

}  // namespace
}  // namespace fabscope::labtest
