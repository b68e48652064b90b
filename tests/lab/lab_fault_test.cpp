// `lab fault` does what it says or fails (issue 9, section 7): width and speed
// are read back (and checked here with ibnetdiscover), swaps are refused when
// meaningless or repeated and can be undone; status and fault keep human text
// on stderr and machine output (checked against docs/ schemas) on stdout.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

void expect_schema(const std::string& schema, const std::string& out) {
    for (const auto& e : fabscope::testing::text_schema_errors(out, schema))
        ADD_FAILURE() << schema << ": " << e;
}

// 1 spine, 2 leaves, 1 host each: leaf01[1] h0001, leaf01[2] spine01[1],
// leaf02[1] h0002, leaf02[2] spine01[2].
class LabFault : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        lab_ = new Lab({"--spines", "1", "--leaves", "2", "--hosts-per-leaf", "1"});
    }
    static void TearDownTestSuite() {
        delete lab_;
        lab_ = nullptr;
    }
    void SetUp() override { ASSERT_TRUE(lab_->up()); }

    /// The rate ibnetdiscover shows on the link at node[port] ("4xHDR").
    static std::string rate_at(const std::string& node, int port) {
        CmdResult r = lab_->exec({"ibnetdiscover"}, std::chrono::seconds(60));
        EXPECT_EQ(r.exit_code, 0) << r.err;
        PeerTopology t = parse_ibnetdiscover(r.out);
        for (const auto& [guid, desc] : t.nodes) {
            if (desc != node && desc.rfind(node + " ", 0) != 0) continue;
            for (const auto& [key, rate] : t.links) {
                if ((key.first == std::make_pair(guid, port)) ||
                    (key.second == std::make_pair(guid, port)))
                    return rate;
            }
        }
        return "";
    }
    /// iblinkinfo's lines for links that are up but not Active (empty: all
    /// Active): what a check run right after a re-cabling would warn about.
    static std::string not_active() {
        CmdResult r = lab_->exec({"iblinkinfo"}, std::chrono::seconds(60));
        EXPECT_EQ(r.exit_code, 0) << r.err;
        std::string out;
        std::istringstream in(r.out);
        for (std::string line; std::getline(in, line);) {
            if (line.find("LinkUp") != std::string::npos &&
                line.find("Active") == std::string::npos)
                out += line + "\n";
        }
        return out;
    }
    static std::string links_of(const std::string& text) {
        std::string out;
        for (const auto& [key, rate] : parse_ibnetdiscover(text).links) out += fmt_link(key) + "\n";
        return out;
    }
    static std::string fmt_link(
        const std::pair<std::pair<uint64_t, int>, std::pair<uint64_t, int>>& k) {
        return std::to_string(k.first.first) + ":" + std::to_string(k.first.second) + "-" +
               std::to_string(k.second.first) + ":" + std::to_string(k.second.second);
    }

    static Lab* lab_;
};
Lab* LabFault::lab_ = nullptr;

TEST_F(LabFault, SpeedTakesEffectOrFailsOnAnHdrLab) {
    ASSERT_EQ(rate_at("leaf01", 2), "4xHDR");
    for (const auto& [word, shown] : std::vector<std::pair<std::string, std::string>>{
             {"fdr", "FDR"}, {"edr", "EDR"}, {"fdr", "FDR"}, {"hdr", "HDR"}}) {
        CmdResult r = lab_->fault({"--json", "speed", "leaf01[2]", word});
        ASSERT_EQ(r.exit_code, 0) << word << ": " << r.err;
        expect_schema("lab-fault.schema.json", r.out);
        json j = json::parse(r.out);
        EXPECT_EQ(j["now"]["speed"], shown) << word;
        EXPECT_EQ(rate_at("leaf01", 2), "4x" + shown) << "after speed " << word;
    }
    // The simulator keeps extended speeds on once enabled: SDR..QDR cannot be
    // reached on an HDR link, and saying so is the honest answer.
    CmdResult r = lab_->fault({"speed", "leaf01[2]", "sdr"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("did not apply"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--speed qdr"), std::string::npos) << r.err;
    EXPECT_EQ(rate_at("leaf01", 2), "4xHDR");
}

TEST(LabFaultQdr, SpeedGoesDownAndBackUp) {
    Lab lab({"--spines", "1", "--leaves", "1", "--hosts-per-leaf", "1", "--speed", "qdr"});
    ASSERT_TRUE(lab.up());
    for (const auto& [word, shown] : std::vector<std::pair<std::string, std::string>>{
             {"sdr", "SDR"}, {"qdr", "QDR"}, {"ddr", "DDR"}, {"sdr", "SDR"}, {"qdr", "QDR"}}) {
        CmdResult r = lab.fault({"--json", "speed", "leaf01[2]", word});
        ASSERT_EQ(r.exit_code, 0) << word << ": " << r.err;
        EXPECT_EQ(json::parse(r.out)["now"]["speed"], shown) << word;
        CmdResult d = lab.exec({"ibnetdiscover"}, std::chrono::seconds(60));
        bool found = false;
        for (const auto& [key, rate] : parse_ibnetdiscover(d.out).links)
            found |= rate == "4x" + shown;
        EXPECT_TRUE(found) << "no 4x" << shown << " link after speed " << word << ":\n" << d.out;
    }
}

TEST_F(LabFault, WidthTakesEffectOrFails) {
    for (const auto& [word, shown] :
         std::vector<std::pair<std::string, std::string>>{{"1x", "1x"}, {"4x", "4x"}}) {
        CmdResult r = lab_->fault({"width", "leaf02[2]", word});
        ASSERT_EQ(r.exit_code, 0) << word << ": " << r.err;
        EXPECT_EQ(r.out, "") << "human text belongs on stderr";
        EXPECT_NE(r.err.find("read back"), std::string::npos) << r.err;
        EXPECT_EQ(rate_at("leaf02", 2), shown + "HDR") << "after width " << word;
    }
}

TEST_F(LabFault, SwapIsCheckedRecordedAndUndone) {
    CmdResult before = lab_->exec({"ibnetdiscover"}, std::chrono::seconds(60));
    ASSERT_EQ(before.exit_code, 0);
    // Both ends of one cable.
    CmdResult r = lab_->fault({"swap", "leaf01[2]", "spine01[1]"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("two ends of one cable"), std::string::npos) << r.err;

    r = lab_->fault({"--json", "swap", "leaf01[2]", "leaf02[2]"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_schema("lab-fault.schema.json", r.out);
    CmdResult swapped = lab_->exec({"ibnetdiscover"}, std::chrono::seconds(60));
    EXPECT_NE(links_of(swapped.out), links_of(before.out));
    // The fault returns once the SM has brought the new links up.
    EXPECT_EQ(not_active(), "");
    // The same swap again, either way round.
    r = lab_->fault({"swap", "leaf01[2]", "leaf02[2]"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("already swapped"), std::string::npos) << r.err;
    r = lab_->fault({"swap", "leaf02[2]", "leaf01[2]"});
    EXPECT_EQ(r.exit_code, 2) << r.err;

    r = run({fabscope(), "lab", "status", "--json", "--dir", lab_->dir()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_schema("lab-status.schema.json", r.out);
    json st = json::parse(r.out);
    ASSERT_EQ(st["swaps"].size(), 1u);
    EXPECT_EQ(st["swaps"][0]["a"], "leaf01[2]");

    r = lab_->fault({"restore-cabling"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(not_active(), "");
    CmdResult after = lab_->exec({"ibnetdiscover"}, std::chrono::seconds(60));
    EXPECT_EQ(links_of(after.out), links_of(before.out));
    r = run({fabscope(), "lab", "status", "--json", "--dir", lab_->dir()});
    EXPECT_EQ(json::parse(r.out)["swaps"].size(), 0u);
}

TEST_F(LabFault, StatusTextOnStderrJsonOnStdout) {
    CmdResult r = run({fabscope(), "lab", "status", "--dir", lab_->dir()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("ibsim"), std::string::npos);
    r = run({fabscope(), "lab", "status", "--json", "-q", "--dir", lab_->dir()});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err, "");
    expect_schema("lab-status.schema.json", r.out);
    EXPECT_EQ(json::parse(r.out)["running"], true);
    r = lab_->fault({"counter", "leaf01[1]", "SymbolErrorCounter=5"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("counters set"), std::string::npos);
}

}  // namespace
}  // namespace fabscope::labtest
