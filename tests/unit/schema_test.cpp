// docs/*.schema.json must describe what fabscope writes. Documents built by
// the real serializers are checked by a standard validator (python3-jsonschema
// through tests/tools/check_schema.py); the schemas are closed, so a member a
// schema does not describe fails, and every family has a test that a wrong
// document is rejected.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "check/link_checks.h"
#include "check/validate.h"
#include "congestion/flow_congestion.h"
#include "model/snapshot.h"
#include "pairtest/results/compare.h"
#include "pairtest/results/report.h"
#include "rdma/stats.h"
#include "reports/validation_report.h"
#include "schedule/schedule_json.h"
#include "schema_check.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using nlohmann::json;

using testing::schema_errors;

/// `doc` with `member` set at JSON pointer `where`: a document the schema must refuse.
json with(json doc, const std::string& where, json member) {
    doc[json::json_pointer(where)] = std::move(member);
    return doc;
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
    json doc = json::parse(out.str());
    for (const auto& e : schema_errors(doc, "snapshot.schema.json")) ADD_FAILURE() << e;
    // The check can fail: a member the schema does not describe, deep down.
    auto errors = schema_errors(with(doc, "/nodes/0/ports/0/surprise", 1), "snapshot.schema.json");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("$.nodes[0].ports[0]"), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("surprise"), std::string::npos) << errors[0];
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
    json doc = validation_to_json(after, v, m);
    for (const auto& e : schema_errors(doc, "validation.schema.json")) ADD_FAILURE() << e;
    // A finding is described by snapshot.schema.json: the cross-file $ref is followed.
    EXPECT_EQ(
        schema_errors(with(doc, "/findings/0/severity", "bad"), "validation.schema.json").size(),
        1u);
    EXPECT_EQ(schema_errors(with(doc, "/counts/error", "one"), "validation.schema.json").size(),
              1u);
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
    // Retransmissions both ways over its 4 s: the loss detector's finding.
    slow.counters = {{"local", {{"completer_retry_err", 400}}},
                     {"remote", {{"duplicate_request", 380}}}};
    slow.congestion =
        test_congestion(slow.counters, {"h1", "rxe0/1", "h3", "rxe0/1"}, 4.0, RoceLimits{});
    ASSERT_EQ(slow.congestion.size(), 2u);
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
    ASSERT_EQ(findings.size(), 4u);  // the slow pair, the dead one, the slow pair's two losses
    EXPECT_EQ(findings[2].kind, "congestion");
    json doc = perf::perf_report_to_json({"2026-11-29T16:00:00Z", "h1", "rxe0", 1, 0.7}, results,
                                         findings);
    for (const auto& e : schema_errors(doc, "perf.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(schema_errors(with(doc, "/results/0/surprise", true), "perf.schema.json").size(), 1u);
    EXPECT_EQ(schema_errors(with(doc, "/results/0/bandwidth/avg_gbps", "fast"), "perf.schema.json")
                  .size(),
              1u);
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
    for (const Schedule& s :
         {cover(eps, oracle, fabric_lanes(*f)), all_pairs(eps.size()), *incast(eps, 0, 3)}) {
        json doc = schedule_json(s, eps, *f, &oracle);
        for (const auto& e : schema_errors(doc, "mesh-plan.schema.json"))
            ADD_FAILURE() << name(s.pattern) << ": " << e;
    }
    json doc = schedule_json(all_pairs(eps.size()), eps, *f, &oracle);
    EXPECT_NE(doc.dump().find("\"error\""), std::string::npos);
    EXPECT_NE(doc.dump().find("\"hops\""), std::string::npos);
    EXPECT_EQ(schema_errors(with(doc, "/endpoints/0/lid", -1), "mesh-plan.schema.json").size(), 1u);
    EXPECT_EQ(schema_errors(with(doc, "/rounds/0/surprise", 1), "mesh-plan.schema.json").size(),
              1u);
}

TEST(Schema, CheckerCatchesDrift) {
    json doc{{"format", "fabscope-snapshot"}, {"version", 1}, {"nodes", json::array()}};
    EXPECT_EQ(schema_errors(doc, "snapshot.schema.json"), std::vector<std::string>{});
    auto errors = schema_errors(with(doc, "/surprise", 1), "snapshot.schema.json");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].rfind("$: Additional properties are not allowed ('surprise'", 0), 0u)
        << errors[0];
    EXPECT_EQ(schema_errors(with(doc, "/version", 2), "snapshot.schema.json").size(), 1u);
    EXPECT_EQ(testing::text_schema_errors("{\"format\": ", "snapshot.schema.json").size(), 1u);
}

// Every schema in docs/ is a valid Draft 2020-12 (or 7) schema by the
// validator's own metaschema, every object in it is closed
// (additionalProperties or unevaluatedProperties), every format it uses can be
// checked, and every $ref resolves.
TEST(SchemaFiles, EverySchemaInDocsIsValidAndClosed) {
    auto paths = testing::all_schema_paths();
    EXPECT_GE(paths.size(), 6u);
    for (const std::string& p : paths) {
        auto r = testing::run_schema_check(p, {});
        EXPECT_EQ(r.exit_code, 0) << p << ":\n" << fmt::format("{}", fmt::join(r.output, "\n"));
    }
}

TEST(SchemaFiles, AnOpenObjectOrAnUncheckedFormatIsAnUnusableSchema) {
    auto check = [](const json& schema) { return testing::run_schema_check_of(schema); };
    json closed{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                {"type", "object"},
                {"additionalProperties", false},
                {"properties", {{"a", {{"type", "object"}, {"properties", json::object()}}}}}};
    auto open = check(closed);
    EXPECT_EQ(open.exit_code, 2);
    ASSERT_EQ(open.output.size(), 1u);
    EXPECT_NE(open.output[0].find("#/properties/a"), std::string::npos) << open.output[0];
    closed["properties"]["a"]["unevaluatedProperties"] = false;
    EXPECT_EQ(check(closed).exit_code, 0);
    closed["properties"]["b"] = {{"type", "string"}, {"format", "no-such-format"}};
    EXPECT_EQ(check(closed).exit_code, 2);
    closed["properties"]["b"] = {{"$ref", "missing.schema.json#/$defs/x"}};
    EXPECT_EQ(check(closed).exit_code, 2);
    closed.erase("$schema");
    EXPECT_EQ(check(closed).exit_code, 2);
}

// check_schema.py: an if/then applied in place inside a closed object needs
// no additionalProperties of its own; an object it describes (a member) still
// does, and so does an if/then inside an object that does not say it is closed.
TEST(SchemaFiles, TheCheckerTakesConditionsInPlaceOfAClosedObject) {
    const json schema = json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "kind": {"type": "string"},
            "evidence": {"type": "object", "additionalProperties": true}
        },
        "allOf": [{
            "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            "then": {"properties": {"evidence": {
                "type": "object", "additionalProperties": false,
                "properties": {"n": {"type": "integer"}}}}}
        }]
    })");
    auto r = testing::run_schema_check_of(schema);
    EXPECT_EQ(r.exit_code, 0) << fmt::format("{}", fmt::join(r.output, "\n"));
    json open_member = schema;
    open_member["allOf"][0]["then"]["properties"]["evidence"].erase("additionalProperties");
    r = testing::run_schema_check_of(open_member);
    EXPECT_EQ(r.exit_code, 2);
    ASSERT_EQ(r.output.size(), 1u);
    EXPECT_NE(r.output[0].find("#/allOf/0/then/properties/evidence"), std::string::npos)
        << r.output[0];
    json open_parent = schema;
    open_parent.erase("additionalProperties");
    r = testing::run_schema_check_of(open_parent);
    EXPECT_EQ(r.exit_code, 2);
    ASSERT_EQ(r.output.size(), 1u);
    EXPECT_NE(r.output[0].find(": #, #/allOf/0/if, #/allOf/0/then"), std::string::npos)
        << r.output[0];
}

}  // namespace
}  // namespace fabscope
