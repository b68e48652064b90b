// docs/snapshot.schema.json must describe what fabscope writes. This checks
// real snapshots against the subset of JSON Schema the document uses
// (type, required, properties, items, enum, const, $ref, oneOf, pattern
// presence) and fails on any member the schema does not describe.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "model/link_checks.h"
#include "model/snapshot.h"
#include "model/validation.h"
#include "perf/compare.h"
#include "perf/report.h"
#include "perf/schedule_json.h"
#include "perf/stats.h"
#include "reports/validation_report.h"
#include "schema_checker.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using nlohmann::json;

using testing::SchemaChecker;

json load_schema(const std::string& name = "snapshot.schema.json") {
    std::ifstream in(std::string(FIXTURES_DIR) + "/../../docs/" + name);
    EXPECT_TRUE(in) << name;
    return json::parse(in);
}

TEST(Schema, DescribesEverySnapshotFabscopeWrites) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 3, .hosts_per_leaf = 2});
    testing::unplug(nodes, "leaf02", 4);
    testing::set_link_width(nodes, "leaf01", 3, Width::X1, WidthSet{Width::X1});
    // Everything a sweep adds: forwarding tables, counters, MAD statistics.
    testing::node_named(nodes, "leaf01").lft = {255, 0, 1, 2, 3};
    PortCounters pc;
    for (int i = 0; i < kCounterCount; ++i)
        pc.set(static_cast<Counter>(i), static_cast<uint64_t>(i));
    pc.extended = true;
    pc.read_at_ms = 1764000000000;
    testing::node_named(nodes, "leaf01").port(1)->counters = pc;
    Snapshot s;
    s.source.method = "sweep";
    s.source.mad_stats = MadStats{1, 2, 3, 4, 5, 6, 7, 8, 9};
    s.fabric = *Fabric::build(nodes);
    auto findings = check_links(s.fabric, classify_tiers(s.fabric));
    ASSERT_FALSE(findings.empty());
    std::ostringstream out;
    write_snapshot(out, s, json{{"findings", findings_to_json(s.fabric, findings)}});
    SchemaChecker checker(load_schema());
    auto errors = checker.check(json::parse(out.str()));
    for (const auto& e : errors) ADD_FAILURE() << e;
}

TEST(Schema, DescribesTheValidationReport) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 3, .hosts_per_leaf = 2});
    Fabric before = *Fabric::build(nodes);
    testing::unplug(nodes, "leaf02", 4);
    Fabric after = *Fabric::build(nodes);
    Validation v = diff_snapshots(before, after, default_thresholds());
    ASSERT_TRUE(v.failed());
    ValidationMeta m{"diff", "2026-11-29T16:00:00Z", "after.json", 0, "", "before.json", "", 0.1,
                     false};
    SchemaChecker checker(load_schema("validation.schema.json"),
                          {{"snapshot.schema.json", load_schema()}});
    for (const auto& e : checker.check(validation_to_json(after, v, m))) ADD_FAILURE() << e;
}

TEST(Schema, DescribesThePerfResults) {
    perf::TestResult bw;
    bw.peer = "10.0.0.2:18515";
    bw.ok = true;
    bw.avg_gbps = 0.41;
    bw.peak_gbps = 0.44;
    bw.min_window_gbps = 0.12;
    bw.counters = {{"local", {{"duplicate_request", 3}}}, {"remote", json::object()}};
    perf::TestResult slow = bw;
    slow.peer = "10.0.1.2";
    slow.avg_gbps = 0.1;
    perf::TestResult lat;
    lat.spec.measure = perf::Measure::Latency;
    lat.spec.op = perf::Op::Send;
    lat.peer = "10.0.0.2";
    lat.ok = true;
    std::vector<double> samples{50, 52, 55};
    lat.latency = perf::latency_stats(samples);
    perf::TestResult dead = lat;
    dead.peer = "10.0.3.2";
    dead.ok = false;
    dead.error = "the server closed the connection";
    dead.caps = {"server: size 1024M capped to 8M (--max-size)"};
    std::vector<perf::TestResult> results{bw, slow, lat, dead};
    auto findings = perf::compare_peers(results, 0.7);
    ASSERT_EQ(findings.size(), 2u);  // the slow pair and the dead one
    json doc = perf::perf_report_to_json({"2026-11-29T16:00:00Z", "h1", "rxe0", 1, 0.7}, results,
                                         findings);
    SchemaChecker checker(load_schema("perf.schema.json"));
    for (const auto& e : checker.check(doc)) ADD_FAILURE() << e;
    EXPECT_TRUE(doc["results"][0].contains("bandwidth"));
    EXPECT_TRUE(doc["results"][2].contains("latency_us"));
}

TEST(Schema, DescribesTheMeshPlan) {
    // LMC 1 so flows name their variant; one table entry removed so a flow
    // carries an error instead of hops.
    auto nodes = testing::leaf_spine_nodes(testing::LeafSpineShape{2, 3, 2, 1});
    testing::add_dmodk_routes(nodes, 1);
    testing::node_named(nodes, "leaf01")
        .lft.at(testing::node_named(nodes, "h0006 HCA-1").ports[0].lid) = 0xFF;
    auto f = Fabric::build(std::move(nodes));
    ASSERT_TRUE(f);
    auto eps = endpoints_from_fabric(*f);
    IbPathOracle oracle(*f);
    SchemaChecker checker(load_schema("mesh-plan.schema.json"));
    for (const Schedule& s :
         {cover(eps, oracle, fabric_lanes(*f)), all_pairs(eps.size()), *incast(eps, 0, 3)}) {
        json doc = schedule_json(s, eps, *f, &oracle);
        for (const auto& e : checker.check(doc)) ADD_FAILURE() << name(s.pattern) << ": " << e;
    }
    json doc = schedule_json(all_pairs(eps.size()), eps, *f, &oracle);
    EXPECT_NE(doc.dump().find("\"error\""), std::string::npos);
    EXPECT_NE(doc.dump().find("\"hops\""), std::string::npos);
}

TEST(Schema, CheckerCatchesDrift) {
    SchemaChecker checker(load_schema());
    json doc{
        {"format", "fabscope-snapshot"}, {"version", 1}, {"nodes", json::array()}, {"surprise", 1}};
    EXPECT_EQ(checker.check(doc),
              std::vector<std::string>{"/surprise: not described by the schema"});
    doc.erase("surprise");
    doc["version"] = 2;
    EXPECT_EQ(checker.check(doc).size(), 1u);
}

}  // namespace
}  // namespace fabscope
