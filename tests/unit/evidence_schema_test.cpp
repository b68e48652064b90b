// Every finding's evidence is described, kind by kind, in
// docs/snapshot.schema.json's $defs/finding (the finding of validation.json,
// congestion.json, snapshots and incast reports): one if/then per kind naming
// $defs/evidence_KIND, closed, its members typed and described. Findings made
// by the real checks are written as `validate -o` writes them and checked by
// the standard validator; every kind validate can write must have its entry.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "check/validate.h"
#include "congestion/dcb_settings.h"
#include "congestion/ethtool_stats.h"
#include "congestion/ip_ecn.h"
#include "congestion/roce_detectors.h"
#include "congestion/xmit_wait_tree.h"
#include "discover/plane_sweep.h"
#include "discover/sweep.h"
#include "fake_fabric.h"
#include "model/plan.h"
#include "reports/validation_report.h"
#include "schema_check.h"
#include "test_fabrics.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

using nlohmann::json;
using testing::node_named;

const testing::LeafSpineShape kShape{.spines = 2, .leaves = 4, .hosts_per_leaf = 3};

// What validate and diff can write into validation.json's findings: the kinds
// of model/validation.cpp's check_of() (the rows near its top, not exposed in
// a header), what the sweep could not read (discover/topology_pass.cpp,
// discover/sweep_context.cpp, discover/plane_sweep.cpp) and the congestion
// trees validate shows in place of xmit_wait (congestion/xmit_wait_tree.cpp).
const std::vector<std::string> kValidateKinds = {
    // check_of(): links
    "link_below_capability", "link_below_peers", "link_count_asymmetry", "mtu_below_capability",
    "port_not_active", "port_polling",
    // check_of(): cabling against the plan, the baseline, the first reading
    "node_missing", "node_new", "node_replaced", "link_down", "miswired", "cables_swapped",
    "unexpected_link", "degraded_link", "leaf_spine_links", "tier_mismatch",
    // check_of(): identities
    "duplicate_guid", "duplicate_lid",
    // check_of(): counters
    "counter_rising", "counter_saturated", "counters_unanswered", "bit_error_rate",
    "raw_bit_error_rate", "xmit_wait", "congestion_root", "congestion_victim",
    // check_of(): subnet managers, partitions
    "sm_not_answering", "sm_no_master", "sm_masters", "sm_standby_missing", "sm_inactive",
    "partition_missing", "partition_unexpected", "partition_membership", "partition_filtered",
    "partition_member_missing",
    // the sweep's problems
    "unreachable", "query_failed", "max_hops", "unmanaged_plane", "plane_unswept"};

json schema_file(const std::string& name) {
    std::ifstream in(testing::schema_path(name));
    return json::parse(in);
}

/// The kinds the finding's allOf has an if/then for, each with the $defs
/// entry its then names ("" when it names none).
std::map<std::string, std::string> described_kinds(const json& snapshot_schema) {
    std::map<std::string, std::string> out;
    const json& finding = snapshot_schema.at("$defs").at("finding");
    for (const json& rule : finding.value("allOf", json::array())) {
        const json* kind = rule.contains("if") ? &rule.at("if") : nullptr;
        if (!kind || !kind->contains("properties")) continue;
        const std::string k = kind->at("properties").at("kind").at("const").get<std::string>();
        std::string ref = rule.value(json::json_pointer("/then/properties/evidence/$ref"), "");
        const std::string prefix = "#/$defs/";
        out[k] = ref.starts_with(prefix) ? ref.substr(prefix.size()) : "";
    }
    return out;
}

Validation run_checks(const Fabric& f, const Plan* plan, std::vector<Finding> sweep_problems = {},
                      const CounterReadings* before = nullptr,
                      const CounterReadings* after = nullptr) {
    Tiers t = classify_tiers(f);
    ValidationInput in{f,    t,       std::move(sweep_problems), before, after,
                       plan, nullptr, default_thresholds()};
    in.after_complete = after != nullptr;
    return validate(in);
}

/// The checks with SMInfo read, and read again `interval_s` later into `after`.
Validation run_checks_sm(const Fabric& f, const SmReadings* after, double interval_s) {
    Tiers t = classify_tiers(f);
    ValidationInput in{f, t, {}, nullptr, nullptr, nullptr, nullptr, default_thresholds()};
    in.sm_read = true;
    in.sm_after = after;
    in.sm_interval_s = interval_s;
    return validate(in);
}

/// The document `validate -o` writes.
json validation_doc(const Fabric& f, const Validation& v) {
    ValidationMeta m{
        "validate", "2026-12-04T21:00:00Z", "fake0 port 1", 10, "plan.yaml", "", "", 1.5, false, 2};
    return validation_to_json(f, v, m);
}

std::set<std::string> kinds_in(const std::vector<json>& docs) {
    std::set<std::string> out;
    for (const json& d : docs) {
        for (const json& x : d.at("findings")) out.insert(x.at("kind").get<std::string>());
    }
    return out;
}

PortCounters reading(int64_t at_ms, std::initializer_list<std::pair<Counter, uint64_t>> values) {
    PortCounters pc;
    pc.read_at_ms = at_ms;
    for (auto [c, v] : values) pc.set(c, v);
    return pc;
}

/// The cabling against a plan: every kind of model/plan_diff.cpp (with
/// `unexpected`, a cable the plan does not have), and the link and identity
/// checks beside it.
json plan_scenario(bool unexpected) {
    Fabric good = testing::leaf_spine(kShape);
    Plan plan = plan_from_fabric(good, classify_tiers(good));
    plan.links_per_leaf_spine = 2;                           // leaf_spine_links (the fabric has 1)
    plan.tiers["spine"].push_back("spine09");                // node_missing
    plan.guids["h0012"] = 0xdead;                            // node_replaced
    EXPECT_EQ(std::erase(plan.tiers["host"], "h0011"), 1u);  // tier_mismatch: planned as a leaf
    plan.tiers["leaf"].push_back("h0011");
    plan.guids.erase("h0010");  // renamed below: node_missing and node_new
    if (unexpected) {
        auto uplink = std::find_if(plan.links.begin(), plan.links.end(), [](const PlanLink& l) {
            return (l.a.node == "leaf04" && l.b.node == "spine02") ||
                   (l.b.node == "leaf04" && l.a.node == "spine02");
        });
        EXPECT_NE(uplink, plan.links.end());
        if (uplink != plan.links.end()) plan.links.erase(uplink);  // unexpected_link
    }

    auto nodes = testing::leaf_spine_nodes(kShape);
    testing::swap_cables(nodes, "leaf01", 1, 2);  // cables_swapped
    testing::swap_cables(nodes, "leaf02", 1, 2);  // miswired, once one of them is out
    testing::unplug(nodes, "leaf02", 2);
    testing::unplug(nodes, "leaf03", 1);  // link_down
    // degraded_link against the plan, link_below_capability (both ends can do 4X)
    testing::set_link_width(nodes, "leaf04", 3, Width::X1, WidthSet{Width::X1, Width::X4});
    node_named(nodes, "h0010 HCA-1").description = "x0010 HCA-1";  // node_new
    node_named(nodes, "h0007 HCA-1").ports[0].lid =
        node_named(nodes, "h0008 HCA-1").ports[0].lid;  // duplicate_lid
    node_named(nodes, "h0009 HCA-1").ports[0].guid =
        node_named(nodes, "h0008 HCA-1").ports[0].guid;  // duplicate_guid
    for (const char* n : {"leaf03", "h0008 HCA-1"}) {    // mtu_below_capability
        Node& x = node_named(nodes, n);
        x.port(x.type == NodeType::Switch ? 2 : 1)->mtu_active = 2048;
    }
    node_named(nodes, "leaf04").port(2)->state = PortState::Armed;  // port_not_active
    Fabric f = *Fabric::build(nodes);
    return validation_doc(f, run_checks(f, &plan));
}

/// Two counter readings without a plan: the counter kinds, the congestion
/// trees validate writes in their place, and the guesses made without a plan.
std::vector<json> counter_scenario() {
    auto nodes = testing::leaf_spine_nodes(kShape);
    testing::unplug(nodes, "leaf01", 4);  // port_polling, link_count_asymmetry
    testing::set_link_width(nodes, "leaf03", 1, Width::X1, WidthSet{Width::X1});  // below peers
    Fabric f = *Fabric::build(nodes);
    auto at = [&](const std::string& node, uint8_t port) {
        return PortRef{f.find(node)->guid, port};
    };
    CounterReadings before{{at("leaf02", 5), reading(0, {{Counter::SymbolErrorCounter, 100}})},
                           {at("leaf03", 5), reading(0, {{Counter::SymbolErrorCounter, 65000}})},
                           {at("leaf04", 2), reading(0, {{Counter::SymbolErrorCounter, 0}})},
                           // RS-FEC correcting at a raw BER of about 5e-5.
                           {at("leaf04", 3), reading(0, {{Counter::PortFECCorrectedSymbolCtr, 0}})},
                           // A host waits toward leaf02, and leaf02 waits toward spine01: a tree.
                           {at("h0004 HCA-1", 1), reading(0, {{Counter::PortXmitWait, 1000}})},
                           {at("leaf02", 4), reading(0, {{Counter::PortXmitWait, 1000}})}};
    CounterReadings after{
        {at("leaf02", 5), reading(10000, {{Counter::SymbolErrorCounter, 500}})},
        {at("leaf03", 5), reading(10000, {{Counter::SymbolErrorCounter, 65535}})},
        {at("leaf04", 3), reading(10000, {{Counter::PortFECCorrectedSymbolCtr, 100000000}})},
        {at("h0004 HCA-1", 1), reading(1000, {{Counter::PortXmitWait, 1000 + 625000000}})},
        {at("leaf02", 4), reading(1000, {{Counter::PortXmitWait, 1000 + 1250000000}})}};
    // As diff and the TUI: xmit_wait per port.
    Validation v = run_checks(f, nullptr, {}, &before, &after);
    json rates = validation_doc(f, v);
    // As validate with two readings (check/validate_run.cpp): trees in its place.
    const auto& t = default_thresholds().xmit_wait;
    auto trees = congestion_trees(f, xmit_wait_shares(f, before, after, t.tick_multiplier), t.warn);
    std::erase_if(v.findings, [](const Finding& x) { return x.kind == "xmit_wait"; });
    auto tree_findings = congestion_findings(f, trees, t);
    v.findings.insert(v.findings.end(), tree_findings.begin(), tree_findings.end());
    // One reading: saturated, without rose_at_least.
    CounterReadings one{{at("leaf03", 5), reading(0, {{Counter::SymbolErrorCounter, 65535}})}};
    return {rates, validation_doc(f, v), validation_doc(f, run_checks(f, nullptr, {}, &one))};
}

/// The sweep's problems through validate: a lossy uplink (unreachable,
/// query_failed), a short --max-hops, an SM-less plane and a port that
/// cannot be swept.
std::vector<json> sweep_scenario() {
    std::vector<json> docs;
    auto nodes = testing::leaf_spine_nodes(kShape);
    testing::program_min_hop_routes(nodes);
    Fabric fabric = *Fabric::build(nodes);
    testing::FakeClock clock;
    const Node& h = nodes.front();
    testing::FakeFabric fake(fabric, h.guid, h.ports.front().num, clock);
    // leaf02's uplink to spine01, the LID routes' first choice: PMA Gets fail too.
    fake.set_port_drop_rate(PortRef{fabric.find("leaf02")->guid, 4}, 1.0);
    LocalPort local;
    local.ca = "fake0";
    local.port = h.ports.front().num;
    local.port_guid = h.ports.front().guid;
    for (size_t max_hops : {size_t{63}, size_t{2}}) {
        SweepOptions o;
        o.max_hops = max_hops;
        auto out = sweep_fabric(fake, clock, local, o);
        EXPECT_TRUE(out) << out.error().message;
        if (!out) continue;
        const Fabric& f = out->snapshot.fabric;
        docs.push_back(validation_doc(f, run_checks(f, nullptr, out->problems)));
    }
    LocalPort lost = local;
    lost.ca = "fake1";
    lost.port_guid = 0x77;  // on no plane swept
    auto planes = sweep_planes({local, lost}, [&](const LocalPort& lp) -> Result<SweepOutput> {
        if (lp.ca == "fake1") return make_error("no answer", kExitCannotRun);
        SweepOutput o;
        o.snapshot.source.ca = lp.ca;
        o.snapshot.fabric = *Fabric::build(nodes);
        return o;
    });
    EXPECT_TRUE(planes) << planes.error().message;
    if (planes) {
        const Fabric& f = planes->snapshot.fabric;
        docs.push_back(validation_doc(f, run_checks(f, nullptr, planes->problems)));
    }
    return docs;
}

/// The subnet managers and partitions: two masters and a silent SM, then no
/// master, then one whose ActCount stood still, short of the plan's
/// standbys; hosts out of, in, and with the other membership of partitions.
std::vector<json> subnet_scenario() {
    std::vector<json> docs;
    auto nodes = testing::leaf_spine_nodes(kShape);
    auto sm_at = [&](const char* host, SmState state) {
        Port& p = *node_named(nodes, host).port(1);
        p.capability_mask |= kCapIsSM;
        if (state != SmState::NotActive) p.sm = SmInfo{p.guid, 500, 1, state};
    };
    sm_at("h0001 HCA-1", SmState::Master);
    sm_at("h0002 HCA-1", SmState::Master);
    sm_at("h0003 HCA-1", SmState::NotActive);  // claims IsSM, does not answer
    for (Node& n : nodes) {
        if (n.type == NodeType::CA) n.ports.front().pkeys = std::vector<uint16_t>{0xFFFF, 0x8001};
    }
    node_named(nodes, "h0004 HCA-1").port(1)->pkeys = std::vector<uint16_t>{0xFFFF};
    node_named(nodes, "h0005 HCA-1").port(1)->pkeys = std::vector<uint16_t>{0xFFFF, 0x0001};
    node_named(nodes, "h0006 HCA-1").port(1)->pkeys = std::vector<uint16_t>{0xFFFF, 0x8001, 0x8002};
    node_named(nodes, "leaf01").port(1)->pkeys = std::vector<uint16_t>{0xFFFF};
    auto plan = parse_plan(
        "fabscope_plan: 1\nsm: {standby: 1}\npartitions:\n"
        "  - {name: all, pkey: 0x0001, full: [ALL, h9999]}\n",
        "plan.yaml");
    EXPECT_TRUE(plan);
    Fabric two = *Fabric::build(nodes);
    Tiers t = classify_tiers(two);
    ValidationInput in{
        two, t, {}, nullptr, nullptr, plan ? &*plan : nullptr, nullptr, default_thresholds()};
    in.sm_read = true;
    docs.push_back(validation_doc(two, validate(in)));

    node_named(nodes, "h0001 HCA-1").port(1)->sm->state = SmState::Standby;
    node_named(nodes, "h0002 HCA-1").port(1)->sm->state = SmState::Standby;
    Fabric none = *Fabric::build(nodes);
    docs.push_back(validation_doc(none, run_checks_sm(none, nullptr, 0)));

    node_named(nodes, "h0001 HCA-1").port(1)->sm->state = SmState::Master;
    Fabric idle = *Fabric::build(nodes);
    const PortRef master{idle.find("h0001 HCA-1")->guid, 1};
    SmReadings after{{master, SmInfo{0, 501, 1, SmState::Master}}};
    docs.push_back(validation_doc(idle, run_checks_sm(idle, &after, 30)));
    SmReadings gone;
    docs.push_back(validation_doc(idle, run_checks_sm(idle, &gone, 30)));
    return docs;
}

TEST(EvidenceSchema, ValidateFindingsOfEveryKindMatchTheSchema) {
    std::vector<json> docs{plan_scenario(false)};
    for (auto* scenario : {counter_scenario, sweep_scenario, subnet_scenario}) {
        for (json& d : scenario()) docs.push_back(std::move(d));
    }
    // The scenarios make every kind validate writes, so every entry is tried;
    // all but unexpected_link (below).
    std::set<std::string> made = kinds_in(docs);
    for (const std::string& k : kValidateKinds) {
        if (k != "unexpected_link") {
            EXPECT_TRUE(made.count(k)) << "none made " << k;
        }
    }
    for (const auto& e : testing::schema_errors(docs, "validation.schema.json")) ADD_FAILURE() << e;
}

// unexpected_link's evidence was passed as `{}`, which nlohmann::json makes
// null: `validate --plan` wrote "evidence": null, which the finding's schema
// (type object) refuses. It is an empty object now.
TEST(EvidenceSchema, UnexpectedLinkEvidenceIsAnObject) {
    json doc = plan_scenario(true);
    EXPECT_TRUE(kinds_in({doc}).count("unexpected_link"));
    for (const auto& e : testing::schema_errors(doc, "validation.schema.json")) ADD_FAILURE() << e;
}

TEST(EvidenceSchema, RoceFindingsMatchTheSchema) {
    // The RoCE detectors' findings go into congestion.json, incast reports and
    // (inside perf results) perf.json, with the finding of snapshot.schema.json.
    RoceChange c;
    c.host = "node1";
    c.interval_s = 10;
    c.netdev_of = {{"mlx5_0/1", "eth0"}};
    c.rdma["mlx5_0/1"] = {{"np_ecn_marked_roce_packets", {5000, 500, false}},
                          {"np_cnp_sent", {0, 0, false}},
                          {"out_of_sequence", {900, 90, false}},
                          {"rp_cnp_handled", {50, 5, false}},
                          {"port_xmit_data", {1000, 100, false}},
                          {"port_rcv_data", {1000, 100, false}}};
    c.eth["eth0"] = {{prio_stat("rx", 3, "pause_duration"), {5000000, 500000, false}},
                     {prio_stat("rx", 3, "pause"), {90000, 9000, false}},
                     {prio_stat("tx", 3, "pause"), {90000, 9000, true}},
                     {"tx_pause_storm_warning_events", {2, 0.2, false}}};
    DcbSettings on;
    on.netdev = "eth0";
    on.available = true;
    on.standard = "ieee";
    on.pfc_enabled = 0x01;  // PFC on priority 0, off on 3
    DcbSettings off;
    off.netdev = "eth1";
    off.unavailable = "the driver has no DCB support";
    c.dcb = {{"eth0", on}, {"eth1", off}};
    c.problems = {"node1: mlx5_1 port 1 names no netdev (gid_attrs/ndevs)"};
    RoceChange victim;
    victim.host = "node2";
    victim.interval_s = 10;
    victim.eth["eth0"] = {{prio_stat("rx", 3, "pause"), {90000, 9000, false}}};
    RoceChange earlier = c;
    earlier.rdma["mlx5_0/1"]["port_xmit_data"] = {1000000, 100000, false};
    auto findings = detect_roce({c, victim}, {earlier}, default_thresholds().roce);
    RoceChange no_device_ecn = victim;
    no_device_ecn.rdma["rxe0/1"] = {};
    for (Finding& f : detect_ce_without_cnp(
             no_device_ecn, {{"InCEPkts", 5000}, {"InECT0Pkts", 90000}}, default_thresholds().roce))
        findings.push_back(std::move(f));
    std::set<std::string> made;
    for (const Finding& f : findings) made.insert(f.kind);
    EXPECT_EQ(made, (std::set<std::string>{"pfc_storm", "pause_source", "pause_victim",
                                           "ecn_without_cnp", "cnp_throughput_collapse",
                                           "pfc_off_on_roce_priority", "loss_on_lossless_class",
                                           "roce_unreadable", "dcb_unavailable"}));
    const Fabric no_fabric;
    json doc{{"format", "fabscope-snapshot"},
             {"version", 1},
             {"nodes", json::array()},
             {"findings", findings_to_json(no_fabric, findings)}};
    for (const auto& e : testing::schema_errors(doc, "snapshot.schema.json")) ADD_FAILURE() << e;
}

TEST(EvidenceSchema, EveryKindValidateWritesHasAnEntry) {
    const json schema = schema_file("snapshot.schema.json");
    auto described = described_kinds(schema);
    for (const std::string& k : kValidateKinds) {
        auto it = described.find(k);
        if (it == described.end()) {
            ADD_FAILURE() << k << ": no if/then for it in snapshot.schema.json's $defs/finding";
            continue;
        }
        EXPECT_EQ(it->second, "evidence_" + k) << k;
    }
    // Every entry names a closed object whose every member is typed and described.
    const json& defs = schema.at("$defs");
    for (const auto& [kind, def] : described) {
        ASSERT_TRUE(defs.contains(def)) << kind << ": $defs/" << def << " is missing";
        const json& e = defs.at(def);
        EXPECT_EQ(e.value("type", ""), "object") << def;
        EXPECT_EQ(e.value("additionalProperties", json(true)), json(false)) << def;
        EXPECT_FALSE(e.value("description", "").empty()) << def;
        for (const auto& [member, s] : e.at("properties").items()) {
            EXPECT_FALSE(s.value("description", "").empty()) << def << "." << member;
            EXPECT_TRUE(s.contains("type") || s.contains("$ref") || s.contains("enum") ||
                        s.contains("const"))
                << def << "." << member;
        }
        for (const json& r : e.value("required", json::array()))
            EXPECT_TRUE(e.at("properties").contains(r.get<std::string>())) << def << ": " << r;
    }
}

TEST(EvidenceSchema, AWrongEvidenceIsRefused) {
    json x{{"kind", "counter_rising"},
           {"severity", "warning"},
           {"summary", "leaf01[3]: SymbolErrorCounter rose"},
           {"where", json::array()},
           {"evidence",
            {{"counter", "SymbolErrorCounter"},
             {"before", 100},
             {"after", 500},
             {"delta", 400},
             {"interval_s", 10.0},
             {"per_hour", 144000.0},
             {"limit", 10},
             {"limit_period_s", 3600.0},
             {"cleared_during_interval", false}}}};
    auto doc = [](json finding) {
        return json{{"format", "fabscope-snapshot"},
                    {"version", 1},
                    {"nodes", json::array()},
                    {"findings", json::array({std::move(finding)})}};
    };
    EXPECT_EQ(testing::schema_errors(doc(x), "snapshot.schema.json"), std::vector<std::string>{});
    json wrong_type = x;
    wrong_type["evidence"]["delta"] = "400";
    json unknown = x;
    unknown["evidence"]["recent"] = {{"delta", 1}};  // the TUI's, never written to a file
    json missing = x;
    missing["evidence"].erase("limit");
    auto errors = testing::schema_errors(
        std::vector<json>{doc(wrong_type), doc(unknown), doc(missing)}, "snapshot.schema.json");
    ASSERT_EQ(errors.size(), 3u) << fmt::format("{}", fmt::join(errors, "\n"));
    EXPECT_NE(errors[0].find("document 0: $.findings[0].evidence.delta"), std::string::npos)
        << errors[0];
    EXPECT_NE(errors[1].find("'recent' was unexpected"), std::string::npos) << errors[1];
    EXPECT_NE(errors[2].find("'limit' is a required property"), std::string::npos) << errors[2];
    // A kind no entry describes is not checked (the schema does not list every kind there will be).
    json other = x;
    other["kind"] = "some_future_kind";
    other["evidence"] = {{"anything", true}};
    EXPECT_EQ(testing::schema_errors(doc(other), "snapshot.schema.json"),
              std::vector<std::string>{});
}

}  // namespace
}  // namespace fabscope
