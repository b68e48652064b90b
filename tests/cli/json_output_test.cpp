// Every JSON document the fabscope binary writes from a snapshot (no lab
// needed), on stdout with --json and to a file with -o, checked against its
// schema in docs/ by a standard validator. The lab tests check the same
// commands' output from live fabrics.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab_harness.h"
#include "model/snapshot.h"
#include "schema_check.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;
using labtest::CmdResult;
using labtest::fabscope;
using labtest::run;
using nlohmann::json;

class JsonOutput : public ::testing::Test {
  protected:
    void SetUp() override {
        // A swept fabric: forwarding tables, counters, one degraded link and
        // one cable out, so findings and routes are in every document.
        auto n = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
        testing::add_dmodk_routes(n);
        PortCounters pc;
        pc.read_at_ms = 1764000000000;
        pc.set(Counter::SymbolErrorCounter, 3);
        testing::node_named(n, "leaf01").port(3)->counters = pc;
        before_ = write("before.json", n);
        testing::set_link_width(n, "leaf02", 3, Width::X1, WidthSet{Width::X1, Width::X4});
        testing::unplug(n, "leaf01", 2);
        pc.read_at_ms += 2000;
        pc.set(Counter::SymbolErrorCounter, 900);
        testing::node_named(n, "leaf01").port(3)->counters = pc;
        after_ = write("after.json", n);
    }
    std::string write(const std::string& name, const std::vector<Node>& nodes) {
        Snapshot s;
        s.source.method = "sweep";
        s.source.started = "2026-12-01T10:00:00Z";
        s.fabric = *Fabric::build(nodes);
        std::string p = path(name);
        std::ofstream(p) << snapshot_to_json(s).dump();
        return p;
    }
    std::string path(const std::string& name) const { return scratch_.path(name); }
    static std::string slurp(const std::string& p) {
        std::ostringstream s;
        s << std::ifstream(p).rdbuf();
        return s.str();
    }
    // `r` wrote a document `schema` describes on stdout; errors name `what`.
    static void expect_valid(const CmdResult& r, const std::string& schema,
                             const std::string& what) {
        for (const auto& e : testing::text_schema_errors(r.out, schema))
            ADD_FAILURE() << what << " (" << schema << "): " << e << "\n" << r.err;
    }
    labtest::ScratchDir scratch_{"fabscope-json"};
    std::string before_;
    std::string after_;
};

TEST_F(JsonOutput, DiscoverWritesSnapshots) {
    auto r = run({fabscope(), "discover", "--load", after_, "--json", "-q", "-o", path("o.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_valid(r, "snapshot.schema.json", "discover --json");
    EXPECT_NE(r.out.find("\"findings\""), std::string::npos);
    for (const auto& e : testing::text_schema_errors(slurp(path("o.json")), "snapshot.schema.json"))
        ADD_FAILURE() << "discover -o: " << e;
}

TEST_F(JsonOutput, PlanWritesAPlan) {
    auto r = run({fabscope(), "plan", "--from", before_, "--json", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_valid(r, "plan.schema.json", "plan --json");
    // The check can fail: a plan link with a sixth member.
    json plan = json::parse(r.out);
    plan["links"][0].push_back("extra");
    EXPECT_EQ(testing::schema_errors(plan, "plan.schema.json").size(), 1u);
}

TEST_F(JsonOutput, ValidateAndDiffWriteValidationReports) {
    auto p = run({fabscope(), "plan", "--from", before_, "-q", "-o", path("plan.yaml")});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    auto v = run({fabscope(), "validate", "--load", after_, "--plan", path("plan.yaml"),
                  "--baseline", before_, "--json", "-q", "-o", path("v.json")});
    EXPECT_EQ(v.exit_code, 1) << v.err;
    expect_valid(v, "validation.schema.json", "validate --json");
    auto d = run({fabscope(), "diff", before_, after_, "--json", "-q", "-o", path("d.json")});
    EXPECT_EQ(d.exit_code, 1) << d.err;
    expect_valid(d, "validation.schema.json", "diff --json");
    for (const auto& e : testing::texts_schema_errors(
             {slurp(path("v.json")), slurp(path("d.json"))}, "validation.schema.json"))
        ADD_FAILURE() << "validate -o, diff -o: " << e;
    EXPECT_NE(d.out.find("counter_rising"), std::string::npos) << d.out;
}

TEST_F(JsonOutput, RouteWritesCompleteAndBrokenRoutes) {
    auto r = run({fabscope(), "route", "h0001", "h0004", "--load", before_, "--json", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_valid(r, "route.schema.json", "route --json");
    ASSERT_EQ(json::parse(r.out)["hops"].size(), 4u) << r.out;
    // h0002 is on leaf01 port 2, unplugged in `after`: the leaf's table still
    // points there, the route breaks at a dead port.
    auto broken = run({fabscope(), "route", "h0003", "h0002", "--load", after_, "--json", "-q"});
    EXPECT_EQ(broken.exit_code, 1) << broken.err;
    expect_valid(broken, "route.schema.json", "route --json, broken");
    EXPECT_EQ(json::parse(broken.out)["complete"], false) << broken.out;
    // The check can fail: a complete route without its hops.
    json doc = json::parse(r.out);
    doc.erase("hops");
    EXPECT_FALSE(testing::schema_errors(doc, "route.schema.json").empty());
}

TEST_F(JsonOutput, RouteBalanceWritesWhatEachPortCarriesAndTheRoutingFindings) {
    auto r = run({fabscope(), "route", "--balance", "--load", before_, "--json", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_valid(r, "route.schema.json", "route --balance --json");
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["destinations"], 4);
    EXPECT_EQ(doc["credit_loops"], 0);
    ASSERT_EQ(doc["switches"].size(), 4u);  // 2 leaves, 2 spines
    for (const json& sw : doc["switches"]) {
        if (!sw["leaf"].get<bool>()) continue;
        EXPECT_EQ(sw["uplink_destinations"], 2);  // the other leaf's two hosts
        EXPECT_DOUBLE_EQ(sw["uplink_spread"].get<double>(), 1.0);
    }
    // h0002's cable out in `after`: one destination fewer, and leaf02's one
    // remote host on one of two uplinks is as even as one can be: no finding.
    auto one = run({fabscope(), "route", "--balance", "--load", after_, "--json", "-q"});
    EXPECT_EQ(one.exit_code, 0) << one.out;
    expect_valid(one, "route.schema.json", "route --balance --json, a host out");
    EXPECT_EQ(json::parse(one.out)["destinations"], 3);
    // Positionals and --balance do not go together; neither is a usage error too.
    EXPECT_EQ(
        run({fabscope(), "route", "h0001", "h0002", "--balance", "--load", before_}).exit_code, 2);
    auto none = run({fabscope(), "route", "--load", before_});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("give a source and a destination, or --balance"), std::string::npos)
        << none.err;
}

TEST_F(JsonOutput, MeshPlanWritesASchedule) {
    auto r = run({fabscope(), "mesh", "plan", "--load", before_, "--json", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_valid(r, "mesh-plan.schema.json", "mesh plan --json");
    auto bare = run({fabscope(), "mesh", "plan", "--load", before_, "--pattern", "all-pairs",
                     "--no-paths", "--json", "-q"});
    EXPECT_EQ(bare.exit_code, 0) << bare.err;
    expect_valid(bare, "mesh-plan.schema.json", "mesh plan --json --no-paths");
    // Three passes: three times the rounds of one on this fabric (one pass
    // takes one), with no pair twice; out of range is a usage error.
    auto one = run({fabscope(), "mesh", "plan", "--load", before_, "--no-paths", "--json", "-q"});
    auto three = run({fabscope(), "mesh", "plan", "--load", before_, "--passes", "3", "--no-paths",
                      "--json", "-q"});
    ASSERT_EQ(three.exit_code, 0) << three.err;
    expect_valid(three, "mesh-plan.schema.json", "mesh plan --passes 3 --json");
    const json a = json::parse(one.out);
    const json b = json::parse(three.out);
    ASSERT_TRUE(a.contains("rounds") && b.contains("rounds")) << three.out;
    EXPECT_EQ(b["rounds"].size(), 3 * a["rounds"].size()) << three.out;
    EXPECT_NE(run({fabscope(), "mesh", "plan", "--load", before_, "--passes", "9"}).exit_code, 0);
}

}  // namespace
}  // namespace fabscope
