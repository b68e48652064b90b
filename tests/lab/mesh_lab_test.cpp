// fabscope mesh plan against the simulated lab: the cover pattern crosses
// every leaf-spine lane, no lane twice in a round, and every planned flow's
// path is the one ibtracert walks on the same lab.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope::labtest {
namespace {

using nlohmann::json;

/// No two flows of a round of `plan` leave one switch port, and `sample`
/// flows spread over the plan walk the hops ibtracert walks on the lab
/// (ports and node at every hop). The flows compared.
size_t check_against_ibtracert(Lab& lab, const json& plan, size_t sample) {
    std::map<std::string, int> lid_of;
    for (const auto& e : plan["endpoints"]) lid_of[e["name"]] = e["lid"];
    size_t flows = 0;
    for (const auto& round : plan["rounds"])
        for (const auto& test : round["tests"]) flows += test["flows"].size();
    const size_t stride = std::max<size_t>(1, flows / std::max<size_t>(1, sample));
    size_t seen = 0;
    size_t compared = 0;
    for (const auto& round : plan["rounds"]) {
        std::set<std::pair<std::string, int>> out_ports;
        for (const auto& test : round["tests"]) {
            for (const auto& flow : test["flows"]) {
                EXPECT_TRUE(flow.contains("hops")) << flow.dump();
                if (!flow.contains("hops")) continue;
                std::vector<std::tuple<int, int, std::string>> mine;
                for (const auto& h : flow["hops"]) {
                    auto out = std::make_pair(h["from"]["node_guid"].get<std::string>(),
                                              h["from"]["port"].get<int>());
                    EXPECT_TRUE(out_ports.insert(out).second)
                        << "two flows of round " << round["round"] << " leave " << h["from"]["node"]
                        << "[" << out.second << "]";
                    mine.emplace_back(h["from"]["port"].get<int>(), h["to"]["port"].get<int>(),
                                      h["to"]["node"].get<std::string>());
                }
                if (seen++ % stride != 0 || compared == sample) continue;
                auto theirs =
                    parse_ibtracert(lab.exec({"ibtracert", std::to_string(lid_of[flow["from"]]),
                                              std::to_string(flow["dlid"].get<int>())})
                                        .out);
                EXPECT_EQ(mine, theirs) << flow["from"] << " -> " << flow["to"];
                ++compared;
            }
        }
    }
    return compared;
}

class MeshLab : public ::testing::Test {
  protected:
    void SetUp() override {
        lab_ = std::make_unique<Lab>(
            std::vector<std::string>{"--spines", "4", "--leaves", "6", "--hosts-per-leaf", "4"});
        ASSERT_TRUE(lab_->up());
        snap_ = lab_->dir() + "-mesh.json";
        CmdResult s = lab_->exec({fabscope(), "sweep", "-q", "-o", snap_});
        ASSERT_EQ(s.exit_code, 0) << s.err;
    }
    void TearDown() override {
        lab_.reset();
        std::remove(snap_.c_str());
    }
    std::unique_ptr<Lab> lab_;
    std::string snap_;
};

TEST_F(MeshLab, CoverCrossesEveryLeafSpineLaneOnTheRoutesIbtracertWalks) {
    CmdResult r = run({fabscope(), "mesh", "plan", "--load", snap_, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& e : fabscope::testing::text_schema_errors(r.out, "mesh-plan.schema.json"))
        ADD_FAILURE() << "mesh plan --json: " << e;
    json plan = json::parse(r.out);
    EXPECT_EQ(plan["pattern"], "cover");
    EXPECT_EQ(plan["endpoints"].size(), 24U);
    EXPECT_EQ(plan["all_pairs_rounds"], 23);
    EXPECT_EQ(plan["coverage"]["lanes"], 4 * 6 * 2);
    EXPECT_EQ(plan["coverage"]["crossed"], 4 * 6 * 2);
    EXPECT_LE(plan["rounds"].size(), 4U);
    EXPECT_NE(r.err.find("48 of 48"), std::string::npos) << r.err;

    EXPECT_GE(check_against_ibtracert(*lab_, plan, 60), 24U);
}

TEST_F(MeshLab, PatternsAndInputErrors) {
    CmdResult all = run({fabscope(), "mesh", "plan", "--load", snap_, "--pattern", "all-pairs",
                         "--json", "--no-paths", "-q"});
    ASSERT_EQ(all.exit_code, 0) << all.err;
    json a = json::parse(all.out);
    EXPECT_EQ(a["rounds"].size(), 23U);
    EXPECT_EQ(a["flows"], 24 * 23);

    CmdResult inc = run({fabscope(), "mesh", "plan", "--load", snap_, "--pattern", "incast",
                         "--incast", "5", "--receiver", "h0003", "--json", "-q"});
    ASSERT_EQ(inc.exit_code, 0) << inc.err;
    json i = json::parse(inc.out);
    ASSERT_EQ(i["rounds"].size(), 1U);
    for (const auto& t : i["rounds"][0]["tests"]) EXPECT_EQ(t["b"], "h0003");

    std::string pairs = lab_->dir() + "-pairs.txt";
    std::ofstream(pairs) << "# two pairs\nh0001 h0024\nh0002 h9999\n";
    CmdResult bad =
        run({fabscope(), "mesh", "plan", "--load", snap_, "--pattern", "pairs", "--pairs", pairs});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find(pairs + ":3:"), std::string::npos) << bad.err;
    std::ofstream(pairs) << "h0001 h0024\nh0002 h0023\nh0001 h0002\n";
    CmdResult good = run({fabscope(), "mesh", "plan", "--load", snap_, "--pattern", "pairs",
                          "--pairs", pairs, "--json", "-q"});
    EXPECT_EQ(good.exit_code, 0) << good.err;
    EXPECT_EQ(json::parse(good.out)["rounds"].size(), 2U);
    std::remove(pairs.c_str());

    // A snapshot without forwarding tables is an input problem.
    std::string bare = lab_->dir() + "-bare.json";
    json snap = json::parse(std::ifstream(snap_));
    for (auto& n : snap["nodes"]) n.erase("lft");
    std::ofstream(bare) << snap.dump();
    CmdResult none = run({fabscope(), "mesh", "plan", "--load", bare});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("no forwarding tables"), std::string::npos) << none.err;
    std::remove(bare.c_str());
}

// The issue's own fabric: 648 hosts under 36 leaves, 18 spines, routed by
// the lab's OpenSM (bench/mesh-plan-labs.sh gives the 2,048-host figures).
TEST(MeshLab648, CoverCrossesAllLeafSpineLanesBothWaysAsIbtracertWalksThem) {
    Lab lab({"--spines", "18", "--leaves", "36", "--hosts-per-leaf", "18"});
    ASSERT_TRUE(lab.up());
    const std::string snap = lab.dir() + "-mesh648.json";
    CmdResult s = lab.exec({fabscope(), "sweep", "-q", "-o", snap});
    ASSERT_EQ(s.exit_code, 0) << s.err;
    CmdResult r = run({fabscope(), "mesh", "plan", "--load", snap, "--json"});
    std::remove(snap.c_str());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json plan = json::parse(r.out);
    EXPECT_EQ(plan["endpoints"].size(), 648U);
    EXPECT_EQ(plan["all_pairs_rounds"], 647);
    EXPECT_EQ(plan["coverage"]["lanes"], 18 * 36 * 2);
    EXPECT_EQ(plan["coverage"]["crossed"], 18 * 36 * 2);
    EXPECT_LE(plan["rounds"].size(), 4U);
    std::printf("648-host lab: cover %zu round(s), %d of %d lanes\n", plan["rounds"].size(),
                plan["coverage"]["crossed"].get<int>(), plan["coverage"]["lanes"].get<int>());
    EXPECT_EQ(check_against_ibtracert(lab, plan, 100), 100U);
}

}  // namespace
}  // namespace fabscope::labtest
