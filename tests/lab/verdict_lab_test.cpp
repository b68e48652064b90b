// One verdict on the lab: the same symbol-error rise on a 64-host fabric is
// found by `validate --interval` and by `tui --dump`, with the same port
// (name, GUID, LID); the counters view lists that port first; Ctrl-C in
// --dump prints what was read and exits 130.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "lab_harness.h"
#include "util/process.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

/// The lines of `text` between "== name ==" and the next section.
std::vector<std::string> section(const std::string& text, const std::string& name) {
    std::vector<std::string> out;
    std::istringstream in(text);
    bool on = false;
    for (std::string l; std::getline(in, l);) {
        if (l.rfind("== ", 0) == 0) {
            on = l == "== " + name + " ==";
            continue;
        }
        if (on) out.push_back(l);
    }
    return out;
}

TEST(VerdictLab, ASymbolErrorRiseIsOneVerdictInValidateAndTheTui) {
    Lab lab({"--spines", "4", "--leaves", "8", "--hosts-per-leaf", "8"});
    ASSERT_TRUE(lab.up());
    auto fault = [&](const std::string& value) {
        ASSERT_EQ(lab.fault({"counter", "leaf05[2]", "SymbolErrorCounter=" + value}).exit_code, 0);
    };
    fault("100");

    // validate: the counter rises by 1000 while it waits between its readings.
    const std::string report = lab.dir() + "-verdict.json";
    SpawnOptions v;
    v.argv = {fabscope(), "lab",        "exec", "--dir", lab.dir(), "--",  fabscope(),
              "validate", "--interval", "4s",   "-v",    "-o",      report};
    v.stderr_path = report + ".err";
    auto vc = spawn(v);
    ASSERT_TRUE(vc);
    ASSERT_TRUE(wait_for_text(v.stderr_path, "Reading the counters again")) << v.stderr_path;
    fault("1100");
    EXPECT_EQ(wait_child(vc->pid, 60000ms).exit_code, 1);
    const json doc = json::parse(std::ifstream(report));
    std::remove(report.c_str());
    // The rise, and the bit error rate it makes (~1e-9 at 4X HDR: an error).
    ASSERT_EQ(doc["findings"].size(), 2u) << doc["findings"].dump(1);
    EXPECT_EQ(doc["findings"][0]["kind"], "bit_error_rate");
    EXPECT_EQ(doc["findings"][0]["severity"], "error");
    const json& f = doc["findings"][1];
    EXPECT_EQ(f["kind"], "counter_rising");
    EXPECT_EQ(f["evidence"]["counter"], "SymbolErrorCounter");
    EXPECT_EQ(f["evidence"]["delta"], 1000);
    const json& at = f["where"][0];
    EXPECT_EQ(at["node"], "leaf05");
    EXPECT_EQ(at["port"], 2);

    // The TUI: six readings a second apart, the same rise after the first.
    const std::string shown = lab.dir() + "-tui.txt";
    SpawnOptions t;
    t.argv = {fabscope(),  "lab", "exec",   "--dir",  lab.dir(),    "--",
              fabscope(),  "tui", "--dump", "all",    "--readings", "6",
              "--refresh", "1s",  "--size", "160x60", "-v"};
    t.stdout_path = shown;
    t.stderr_path = shown + ".err";
    auto tc = spawn(t);
    ASSERT_TRUE(tc);
    ASSERT_TRUE(wait_for_text(t.stderr_path, "tui: reading 1 of 6 taken")) << t.stderr_path;
    fault("2100");
    EXPECT_EQ(wait_child(tc->pid, 60000ms).exit_code, 0);
    const std::string text = slurp(shown);
    const auto findings = section(text, "findings");
    ASSERT_GE(findings.size(), 5u) << text;
    // The same two findings, with the port as validate names it: name, GUID, LID.
    EXPECT_NE(findings[1].find("1 error 1 warning"), std::string::npos) << findings[1];
    EXPECT_EQ(findings[3].find("● error   bit_error_rate"), 0u) << findings[3];
    EXPECT_EQ(findings[4].find("● warning counter_rising"), 0u) << findings[4];
    const std::string port = "at leaf05[2]  " + at["node_guid"].get<std::string>() + "  LID " +
                             std::to_string(at["lid"].get<int>());
    EXPECT_NE(text.find(port), std::string::npos) << port << "\n" << text;
    EXPECT_NE(text.find("SymbolErrorCounter rose by 1000 in"), std::string::npos) << text;
    // The counters view: the port that got worse first, though it no longer rises.
    const auto counters = section(text, "counters");
    ASSERT_GE(counters.size(), 5u) << text;
    EXPECT_EQ(counters[4].rfind("leaf05[2]", 0), 0u) << counters[4];
    std::remove(shown.c_str());

    // Ctrl-C in --dump: what was read is printed, exit 130.
    const std::string cut = lab.dir() + "-tui-int.txt";
    SpawnOptions c;
    c.argv = {fabscope(), "lab",      "exec",       "--dir", lab.dir(),   "--", fabscope(), "tui",
              "--dump",   "findings", "--readings", "100",   "--refresh", "1s", "-v"};
    c.stdout_path = cut;
    c.stderr_path = cut + ".err";
    auto cc = spawn(c);
    ASSERT_TRUE(cc);
    ASSERT_TRUE(wait_for_text(c.stderr_path, "tui: reading 1 of 100 taken")) << c.stderr_path;
    ::kill(cc->pid, SIGINT);  // to `lab exec`, which passes it on
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(wait_child(cc->pid, 20000ms).exit_code, 130);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    EXPECT_NE(slurp(cut).find(" 5 Findings "), std::string::npos) << slurp(cut);
    std::remove(cut.c_str());
}

}  // namespace
}  // namespace fabscope::labtest
