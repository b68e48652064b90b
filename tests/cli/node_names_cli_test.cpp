// --node-name-map on every command, and the exporter's flag errors: the
// fabscope binary run on files, exit codes and messages checked. No lab.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lab_harness.h"
#include "model/snapshot.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;
using labtest::CmdResult;
using labtest::fabscope;
using labtest::run;
using nlohmann::json;

class NodeNamesCli : public ::testing::Test {
  protected:
    void SetUp() override {
        Snapshot s;
        s.fabric = *Fabric::build(
            testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2}));
        snap_ = write("fabric.json", snapshot_to_json(s).dump());
    }
    std::string write(const std::string& name, const std::string& text) {
        return scratch_.write(name, text);
    }
    labtest::ScratchDir scratch_{"fabscope-names"};
    const fs::path& dir_ = scratch_.dir();
    std::string snap_;
};

TEST_F(NodeNamesCli, DiscoverAndPlanUseTheMappedNames) {
    auto map = write("names.map", "# vendor strings are no help\n0x2001 \"rack1-leaf-a\"\n");
    CmdResult d =
        run({fabscope(), "--node-name-map", map, "discover", "--load", snap_, "--json", "-q"});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    json j = json::parse(d.out);
    std::vector<std::string> names;
    for (const auto& n : j["nodes"]) names.push_back(n["description"]);
    EXPECT_NE(std::find(names.begin(), names.end(), "rack1-leaf-a"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "leaf01"), names.end());

    // After the subcommand too, like every global option.
    auto plan = (dir_ / "plan.yaml").string();
    CmdResult p =
        run({fabscope(), "plan", "--from", snap_, "-o", plan, "-q", "--node-name-map", map});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    std::ifstream in(plan);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("rack1-leaf-a"), std::string::npos);
}

TEST_F(NodeNamesCli, ValidatePromWritesTheMetricsWithTheMappedNames) {
    auto map = write("names.map", "0x2001 \"rack1-leaf-a\"\n");
    auto prom = (dir_ / "fabscope.prom").string();
    CmdResult r = run({fabscope(), "validate", "--load", snap_, "--interval", "0", "-q", "--prom",
                       prom, "--node-name-map", map});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(prom);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("fabscope_port_link_up{node=\"rack1-leaf-a\""), std::string::npos);
    EXPECT_NE(text.find("fabscope_last_sweep_success 1\n"), std::string::npos);
    r = run({fabscope(), "validate", "--load", snap_, "--interval", "0", "-q", "--prom",
             (dir_ / "missing" / "x.prom").string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("missing/x.prom: cannot write"), std::string::npos) << r.err;
}

TEST_F(NodeNamesCli, ABadMapIsExit2NamingFileAndLine) {
    auto map = write("names.map", "0x2001 \"a\"\n0x2002 leaf02\n");
    CmdResult r = run({fabscope(), "--node-name-map", map, "discover", "--load", snap_, "-q"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(map + ":2: expected a \"name\" in quotes"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(NodeNamesCli, ExporterFlagErrorsAreExit2) {
    CmdResult r = run({fabscope(), "exporter", "--listen", "9775"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--listen 9775: no port"), std::string::npos) << r.err;
    r = run({fabscope(), "exporter", "--listen", "example.com:9775"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("not an IPv4 address"), std::string::npos) << r.err;
    r = run({fabscope(), "exporter", "--interval", "soon"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--interval soon"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fabscope
