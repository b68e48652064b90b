// The checks of `fabscope health` on the synthetic fixture trees
// (tests/fixtures/host): each broken tree fails for its own reason and only
// that one; the healthy tree passes.

#include <gtest/gtest.h>

#include <filesystem>

#include "host/health_checks.h"
#include "host/health_expect.h"
#include "host/health_json.h"
#include "host/health_state.h"
#include "host/inventory.h"
#include "host/slurm_drain.h"
#include "schema_check.h"

namespace fabscope::host {
namespace {

HostInventory tree(const std::string& name) {
    return read_inventory(std::string(FIXTURES_DIR) + "/host/" + name);
}

std::vector<std::string> errors(const HealthResult& r) {
    std::vector<std::string> out;
    for (const auto& f : r.findings) {
        if (f.severity == HealthSeverity::Error) out.push_back(f.check + ": " + f.message);
    }
    return out;
}

TEST(HostHealth, HealthyHostPasses) {
    HealthResult r = check_health(tree("healthy"), {}, std::nullopt);
    EXPECT_TRUE(r.healthy()) << r.reason();
    EXPECT_TRUE(r.findings.empty());
    EXPECT_EQ(r.reason(), "");
    EXPECT_EQ(r.expected.width, Width::X4);
    EXPECT_EQ(r.expected.speed, Speed::HDR);
    EXPECT_EQ(r.expected.source, "majority of 2 active port(s)");
}

TEST(HostHealth, EachBrokenTreeFailsForItsReason) {
    struct Case {
        const char* tree;
        const char* error;
    };
    for (const Case& c : {
             Case{"pcie-x8", "pcie: mlx5_0 PCIe 0000:19:00.0 downtrained to x8 (max x16)"},
             Case{"no-rocev2", "roce_gid: mlx5_1 port 1: no RoCE v2 GID (4 GID(s) in the table)"},
             Case{"port-down", "port_state: mlx5_0 port 1 is DOWN (Polling), not ACTIVE"},
             Case{"slow-port",
                  "port_rate: mlx5_2 port 1 at 4X EDR (100 Gb/s), expected 4X HDR "
                  "(majority of 4 active port(s))"},
         }) {
        HealthResult r = check_health(tree(c.tree), {}, std::nullopt);
        EXPECT_FALSE(r.healthy()) << c.tree;
        EXPECT_EQ(errors(r), std::vector<std::string>{c.error}) << c.tree;
    }
}

TEST(HostHealth, ExpectedRateFromExpectations) {
    HealthExpect e;
    e.width = Width::X4;
    e.speed = Speed::NDR;
    e.rate_source = "--expect h.yaml";
    HealthResult r = check_health(tree("healthy"), e, std::nullopt);
    ASSERT_EQ(errors(r).size(), 2u);
    EXPECT_EQ(errors(r)[0],
              "port_rate: mlx5_0 port 1 at 4X HDR (200 Gb/s), expected 4X NDR (--expect h.yaml)");
    EXPECT_EQ(r.reason(),
              "mlx5_0 port 1 at 4X HDR (200 Gb/s), expected 4X NDR (--expect "
              "h.yaml) (+1 more)");
}

TEST(HostHealth, NoMajorityIsAWarningNotAFailure) {
    HostInventory inv = tree("healthy");
    inv.devices[1].ports[0].speed = Speed::EDR;
    HealthResult r = check_health(inv, {}, std::nullopt);
    EXPECT_TRUE(r.healthy());
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].message,
              "active ports run at 4X EDR, 4X HDR and none is the majority; say which is right "
              "with --expect or --plan");
}

TEST(HostHealth, MissingDevicesAndNoSm) {
    HealthExpect e;
    e.devices = {"mlx5_0", "mlx5_3"};
    e.min_devices = 2;
    HostInventory inv = tree("healthy");
    inv.devices[0].ports[0].sm_lid = 0;
    EXPECT_EQ(errors(check_health(inv, e, std::nullopt)),
              (std::vector<std::string>{"devices: RDMA device mlx5_3 is missing",
                                        "ib_sm: mlx5_0 port 1: no subnet manager (SM LID 0)"}));
    HostInventory none;
    EXPECT_EQ(errors(check_health(none, {}, std::nullopt)),
              std::vector<std::string>{"devices: no RDMA device"});
}

TEST(HostHealth, RisingErrorCountersFailOnlyAboveTheirAllowance) {
    CounterState before = state_of(tree("healthy"), "2026-12-01T10:00:00Z");
    HostInventory now = tree("errors-rising");
    EXPECT_EQ(errors(check_health(now, {}, before)),
              std::vector<std::string>{"counters: mlx5_0 port 1: error counters rose since "
                                       "2026-12-01T10:00:00Z: symbol_error +57, link_downed +2"});
    HealthExpect e;
    e.counter_rise = {{"symbol_error", 100}, {"link_downed", 2}};
    EXPECT_TRUE(check_health(now, e, before).healthy());
    // Counters that went down were cleared: a new baseline, not a failure.
    EXPECT_TRUE(check_health(tree("healthy"), {}, state_of(now, "t")).healthy());
    // Without a previous run there is nothing to compare.
    EXPECT_TRUE(check_health(now, {}, std::nullopt).healthy());
}

TEST(HostHealth, StateRoundTripsAndRefusesStrangers) {
    CounterState s = state_of(tree("errors-rising"), "2026-12-01T10:00:00Z");
    auto back = parse_state(state_to_text(s), "s.json");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->written, s.written);
    EXPECT_EQ(back->ports, s.ports);
    EXPECT_EQ(back->ports.at("mlx5_0/1").at("symbol_error"), 57U);
    auto bad = parse_state(R"({"format": "fabscope-snapshot", "version": 1})", "s.json");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message, "s.json: not a fabscope health state file (format)");
    EXPECT_FALSE(parse_state("{", "s.json"));
    EXPECT_FALSE(parse_state(
        R"({"format": "fabscope-health-state", "version": 1, "ports": {"a/1": {"x": -1}}})",
        "s.json"));
    EXPECT_EQ(default_state_path("/x", "/home/u", false), "/x/fabscope/health.json");
    EXPECT_EQ(default_state_path(nullptr, "/home/u", true), "/var/lib/fabscope/health.json");
    EXPECT_EQ(default_state_path("", "/home/u", false),
              "/home/u/.local/state/fabscope/health.json");
}

TEST(HostHealth, ExpectFile) {
    auto e = parse_health_expect(
        "fabscope_health: 1\ndevices: [mlx5_0, mlx5_1]\nexpect: {width: 4x, speed: hdr}\n"
        "counter_rise: {symbol_error: 10}\n",
        "h.yaml");
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_EQ(e->devices.size(), 2u);
    EXPECT_EQ(e->min_devices, 2);
    EXPECT_EQ(e->width, Width::X4);
    EXPECT_EQ(e->speed, Speed::HDR);
    EXPECT_EQ(e->rate_source, "--expect h.yaml");
    EXPECT_EQ(e->counter_rise.at("symbol_error"), 10U);
    auto count = parse_health_expect("fabscope_health: 1\ndevices: 4\n", "h.yaml");
    ASSERT_TRUE(count);
    EXPECT_EQ(count->min_devices, 4);
    auto bad = parse_health_expect("fabscope_health: 1\nexpect: {width: 3X}\n", "h.yaml");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message, "h.yaml:2:17: width: \"3X\" is not one of 1X, 2X, 4X, 8X, 12X");
    EXPECT_FALSE(parse_health_expect("fabscope_health: 1\nsurprise: 1\n", "h.yaml"));
    EXPECT_FALSE(parse_health_expect("devices: 1\n", "h.yaml"));
}

TEST(HostHealth, DrainCommand) {
    EXPECT_EQ(slurm_node_name("", nullptr, "node07.cluster.example"), "node07");
    EXPECT_EQ(slurm_node_name("", "n7", "node07.cluster.example"), "n7");
    EXPECT_EQ(slurm_node_name("x", "n7", "node07"), "x");
    EXPECT_EQ(
        drain_command("scontrol", "n7", "mlx5_0 PCIe 0000:19:00.0 downtrained to x8"),
        (std::vector<std::string>{"scontrol", "update", "NodeName=n7", "State=DRAIN",
                                  "Reason=fabscope: mlx5_0 PCIe 0000:19:00.0 downtrained to x8"}));
    // One line, bounded: a reason is never a second argument or a second line.
    std::string r = drain_reason("a\nb\x1b[31m" + std::string(500, 'x'));
    EXPECT_EQ(r.find('\n'), std::string::npos);
    EXPECT_EQ(r.find('\x1b'), std::string::npos);
    EXPECT_EQ(r.size(), 200u);
    EXPECT_FALSE(drain_node("/nonexistent/scontrol", "n7", "x"));
    // One node, never a hostlist (SLURMD_NODENAME is taken as it comes).
    EXPECT_TRUE(is_one_node_name("gpu-a17.rack3"));
    for (const char* many : {"node[01-99]", "n1,n2", "n1 n2", "-n1", ""}) {
        EXPECT_FALSE(is_one_node_name(many)) << many;
    }
    auto refused = drain_node("/bin/true", "node[01-99]", "x");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, 2);
    // scontrol's output goes to stderr: stdout is health's JSON.
    ::testing::internal::CaptureStdout();
    Status drained = drain_node("/bin/echo", "n7", "x");
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
    EXPECT_TRUE(drained);
}

TEST(HostHealth, JsonMatchesTheSchema) {
    std::vector<nlohmann::json> docs;
    for (const char* t : {"healthy", "pcie-x8", "no-rocev2", "port-down", "slow-port"}) {
        HostInventory inv = tree(t);
        HealthMeta meta{"node01", "2026-12-01T10:00:00Z", 1.5, "/tmp/s.json", false};
        docs.push_back(health_to_json(inv, check_health(inv, {}, std::nullopt), meta));
    }
    for (const auto& e : testing::schema_errors(docs, "health.schema.json")) ADD_FAILURE() << e;
    nlohmann::json bad = docs[0];
    bad["inventory"]["devices"][0]["ports"][0]["surprise"] = 1;
    EXPECT_EQ(testing::schema_errors(bad, "health.schema.json").size(), 1u);
    bad = docs[1];
    bad["findings"][0]["severity"] = "fatal";
    EXPECT_EQ(testing::schema_errors(bad, "health.schema.json").size(), 1u);
}

}  // namespace
}  // namespace fabscope::host
