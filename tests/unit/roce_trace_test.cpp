// ECMP-aware RoCE path tracing (trace/roce_trace.h, trace/roce_sport.h): the
// tracer against a fake fabric whose routers answer per source port, the
// Soft-RoCE port derivation, names files, and the documents' schemas.

#include "trace/roce_trace.h"

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "pairtest/results/report.h"
#include "schema_check.h"
#include "trace/flow_path.h"
#include "trace/roce_sport.h"
#include "trace/udp_probe.h"

namespace fabscope::perf {
namespace {

using fabscope::testing::schema_errors;

/// Routers answer by source port, like an ECMP fabric hashing on it; what is
/// beyond the last router (the destination) answers nothing unless told to.
class FakeFabric final : public ProbeTransport {
  public:
    explicit FakeFabric(ManualClock& clock) : clock_(clock) {}
    std::map<uint16_t, std::vector<std::string>> paths;
    std::string destination_answers;  ///< "": silent
    std::set<uint16_t> broken;        ///< ports whose sends fail
    bool quote = true;                ///< routers quote the payload (the tag)
    uint32_t stale_tag = 0;           ///< also answer every probe once more with this tag
    struct Sent {
        uint16_t sport;
        int ttl;
        Clock::time_point at;
    };
    std::vector<Sent> sent;

    Status send(uint16_t sport, int ttl, uint32_t tag) override {
        if (broken.count(sport)) return make_error("Operation not permitted", 3);
        sent.push_back({sport, ttl, clock_.now()});
        const auto& p = paths[sport];
        ProbeAnswer a;
        a.sport = sport;
        a.tag = quote ? tag : 0;
        if (stale_tag != 0) {
            ProbeAnswer s = a;
            s.tag = stale_tag;
            s.from = "10.66.66.66";
            answers_.push_back(s);
        }
        if (static_cast<size_t>(ttl) <= p.size()) {
            a.from = p[static_cast<size_t>(ttl) - 1];
            answers_.push_back(a);
        } else if (!destination_answers.empty()) {
            a.kind = ProbeAnswer::Kind::Unreachable;
            a.icmp_type = 3;
            a.icmp_code = 3;
            a.from = destination_answers;
            answers_.push_back(a);
        }
        return Ok{};
    }
    std::optional<ProbeAnswer> receive(Clock::time_point until) override {
        if (answers_.empty()) {
            if (until > clock_.now()) clock_.advance(until - clock_.now());
            return std::nullopt;
        }
        clock_.advance(std::chrono::microseconds(200));
        ProbeAnswer a = answers_.front();
        answers_.pop_front();
        return a;
    }

  private:
    ManualClock& clock_;
    std::deque<ProbeAnswer> answers_;
};

const std::vector<std::string> kViaS1{"10.1.0.254", "10.9.11.1", "10.9.21.0"};
const std::vector<std::string> kViaS2{"10.1.0.254", "10.9.12.1", "10.9.22.0"};
const HostNames kNames{{"10.1.0.254", "l1"},
                       {"10.9.11.1", "s1"},
                       {"10.9.21.0", "l2"},
                       {"10.9.12.1", "s2"},
                       {"10.9.22.0", "l2"}};

TEST(RxeSport, IsTheKernelsRuleAsSeenOnTheWire) {
    // QPN 0x11 to QPN 0x11: tcpdump in the VM lab saw source port 49441 both ways.
    EXPECT_EQ(rxe_udp_sport(17, 17), 49441);
    EXPECT_EQ(rxe_udp_sport(18, 17), 49458);
    EXPECT_EQ(rxe_udp_sport(17, 18), rxe_udp_sport(18, 17));  // both directions of a connection
    // Large QPNs fold the high bits of the product into 20 bits, then 14.
    EXPECT_EQ(rxe_udp_sport(0x123456, 0x654321), 63367);
    // A flow label, when the QP has one, decides alone.
    EXPECT_EQ(rxe_udp_sport(1, 2, 0x12345), 58177);
    for (uint32_t q = 1; q < 5000; q += 7) {
        uint16_t p = rxe_udp_sport(q, q + 3);
        EXPECT_GE(p, 0xC000);
    }
}

TEST(RxeSport, SpreadPortsAreDistinctAndInRoceRange) {
    for (int k : {1, 2, 16, 256}) {
        std::vector<uint16_t> p = spread_udp_sports(k);
        ASSERT_EQ(p.size(), static_cast<size_t>(k));
        EXPECT_EQ(std::set<uint16_t>(p.begin(), p.end()).size(), p.size());
        for (uint16_t s : p) EXPECT_GE(s, 0xC000);
    }
    EXPECT_TRUE(spread_udp_sports(0).empty());
}

TEST(RoceTrace, EachPortFollowsItsOwnPathAndNamesItsHops) {
    ManualClock clock;
    FakeFabric fab(clock);
    fab.paths[50000] = kViaS1;
    fab.paths[50001] = kViaS2;
    TraceOptions o;
    auto flows = trace_flows(fab, clock, {50000, 50001}, "10.2.0.1", o, kNames);
    ASSERT_EQ(flows.size(), 2u);
    ASSERT_EQ(flows[0].hops.size(), 3u);
    EXPECT_EQ(flows[0].hops[1].address, "10.9.11.1");
    EXPECT_EQ(flows[0].hops[1].name, "s1");
    EXPECT_EQ(flows[0].hops[1].ttl, 2);
    EXPECT_EQ(flows[1].hops[1].name, "s2");
    EXPECT_EQ(flows[0].end, "silent");
    // One probe past the last router, which nothing answers.
    EXPECT_EQ(fab.sent.size(), 8u);
    auto paths = distinct_paths(flows);
    ASSERT_EQ(paths.size(), 2u);
    EXPECT_EQ(paths[0].hops[1], "s1 (10.9.11.1)");
    EXPECT_EQ(paths[1].sports, std::vector<uint16_t>{50001});
    // Each silent end costs one timeout, flows in parallel.
    EXPECT_LT(clock.now().time_since_epoch(), o.timeout + std::chrono::milliseconds(10));
}

TEST(RoceTrace, ProbesInFlightAreBounded) {
    ManualClock clock;
    FakeFabric fab(clock);  // nothing answers: every flow waits a full timeout
    TraceOptions o;
    o.in_flight = 2;
    o.timeout = std::chrono::milliseconds(100);
    auto flows = trace_flows(fab, clock, {1, 2, 3, 4, 5}, "10.2.0.1", o, {});
    ASSERT_EQ(fab.sent.size(), 5u);
    std::map<Clock::time_point, int> at;
    for (const auto& s : fab.sent) ++at[s.at];
    for (const auto& [t, n] : at) EXPECT_LE(n, 2);
    EXPECT_EQ(at.size(), 3u);  // 2 + 2 + 1
    for (const FlowTrace& f : flows) {
        EXPECT_TRUE(f.hops.empty());
        EXPECT_EQ(f.end, "silent");
    }
}

TEST(RoceTrace, HopCountIsBoundedEvenOnALoop) {
    ManualClock clock;
    FakeFabric fab(clock);
    fab.paths[7] = std::vector<std::string>(100, "10.9.9.9");  // a routing loop answers forever
    TraceOptions o;
    o.max_hops = 40;  // clamped to kMaxTraceHops
    auto flows = trace_flows(fab, clock, {7}, "10.2.0.1", o, {});
    EXPECT_EQ(flows[0].hops.size(), static_cast<size_t>(kMaxTraceHops));
    EXPECT_EQ(flows[0].end, "max_hops");
}

TEST(RoceTrace, EndsAtADestinationThatAnswersAndAtAnUnreachableRouter) {
    ManualClock clock;
    FakeFabric fab(clock);
    fab.paths[1] = kViaS1;
    fab.destination_answers = "10.2.0.1";
    auto flows = trace_flows(fab, clock, {1}, "10.2.0.1", {}, {});
    EXPECT_EQ(flows[0].end, "destination");
    EXPECT_EQ(flows[0].hops.size(), 3u);
    EXPECT_EQ(clock.now().time_since_epoch(), std::chrono::microseconds(800));  // no timeout

    FakeFabric lost(clock);
    lost.paths[1] = {"10.1.0.254"};
    lost.destination_answers = "10.1.0.254";  // the leaf has no route
    flows = trace_flows(lost, clock, {1}, "10.2.0.1", {}, {});
    EXPECT_EQ(flows[0].end, "unreachable");
    EXPECT_EQ(flows[0].hops.size(), 2u);
    EXPECT_NE(flows[0].error.find("10.1.0.254 answered destination unreachable"),
              std::string::npos);
}

TEST(RoceTrace, StaleAnswersAreIgnoredAndUnquotedOnesAccepted) {
    ManualClock clock;
    FakeFabric fab(clock);
    fab.paths[1] = kViaS2;
    fab.stale_tag = 999999;  // an answer to a probe that is not outstanding
    auto flows = trace_flows(fab, clock, {1}, "10.2.0.1", {}, kNames);
    ASSERT_EQ(flows[0].hops.size(), 3u);
    for (const TraceHop& h : flows[0].hops) EXPECT_NE(h.address, "10.66.66.66");

    FakeFabric bare(clock);  // routers that quote only the UDP header
    bare.paths[1] = kViaS2;
    bare.quote = false;
    flows = trace_flows(bare, clock, {1}, "10.2.0.1", {}, kNames);
    EXPECT_EQ(flows[0].hops.size(), 3u);
}

TEST(RoceTrace, ASendThatFailsEndsThatFlowOnly) {
    ManualClock clock;
    FakeFabric fab(clock);
    fab.paths[1] = kViaS1;
    fab.paths[2] = kViaS2;
    fab.broken = {2};
    auto flows = trace_flows(fab, clock, {1, 2}, "10.2.0.1", {}, {});
    EXPECT_EQ(flows[0].hops.size(), 3u);
    EXPECT_EQ(flows[1].end, "error");
    EXPECT_EQ(flows[1].error, "Operation not permitted");
}

TEST(HostNames, ParsesHostsFilesAndNamesTheBadLine) {
    auto n = parse_host_names(
        "# fabric\n10.1.0.254 l1 leaf1\n\n10.9.11.1\ts1 # spine\n10.1.0.254 x\n", "f.hosts");
    ASSERT_TRUE(n) << n.error().message;
    EXPECT_EQ(n->at("10.1.0.254"), "l1");
    EXPECT_EQ(n->at("10.9.11.1"), "s1");
    auto bad = parse_host_names("10.1.0.1 a\n10.1.0.2\n", "f.hosts");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message, "f.hosts:2: \"10.1.0.2\" has no name (want ADDRESS NAME)");
}

TEST(RoceTrace, AddressesFromGidsAndPeers) {
    std::array<uint8_t, 16> g{};
    g[10] = 0xff;
    g[11] = 0xff;
    g[12] = 10;
    g[13] = 2;
    g[15] = 1;
    EXPECT_EQ(gid_ipv4(g), "10.2.0.1");
    g[0] = 0xfe;
    EXPECT_EQ(gid_ipv4(g), "");
    EXPECT_EQ(*resolve_ipv4("10.2.0.1"), "10.2.0.1");
    EXPECT_FALSE(UdpProbeTransport::open("", "fe80::1"));
    EXPECT_TRUE(on_link("127.0.0.2"));
}

TEST(RoceTrace, SoftRoceIsKnownByItsNodeDescription) {
    namespace fs = std::filesystem;
    fs::path root = fs::temp_directory_path() / ("fabscope-ib-" + std::to_string(::getpid()));
    fs::create_directories(root / "mlx5_0");
    fs::create_directories(root / "roce0");
    std::ofstream(root / "mlx5_0/node_desc") << "host1 mlx5_0\n";
    std::ofstream(root / "roce0/node_desc") << "rxe\n";
    EXPECT_FALSE(is_soft_roce("mlx5_0", root.string()));
    EXPECT_TRUE(is_soft_roce("roce0", root.string()));
    EXPECT_TRUE(is_soft_roce("rxe_h1", (root / "none").string()));
    fs::remove_all(root);
}

TEST(RoceTrace, DocumentsMatchTheirSchemasAndReadBack) {
    ManualClock clock;
    FakeFabric fab(clock);
    fab.paths[50000] = kViaS1;
    fab.paths[50001] = kViaS2;
    fab.broken = {50002};
    TraceReport r;
    r.destination = "10.2.0.1";
    r.ports = "spread";
    r.flows = trace_flows(fab, clock, {50000, 50001, 50002}, "10.2.0.1", {}, kNames);
    nlohmann::json doc = trace_report_to_json(r);
    for (const auto& e : schema_errors(doc, "perf-trace.schema.json")) ADD_FAILURE() << e;
    nlohmann::json bad = doc;
    bad["flows"][0]["hops"][0]["ttl"] = 33;
    EXPECT_EQ(schema_errors(bad, "perf-trace.schema.json").size(), 1u);
    FlowTrace back = flow_trace_from_json(doc["flows"][0]);
    EXPECT_EQ(back.hops.size(), 3u);
    EXPECT_EQ(back.hops[2].name, "l2");
    EXPECT_EQ(back.end, "silent");

    // A perf result carries its flow's path; the report reads it back.
    TestResult t;
    t.peer = "10.2.0.1";
    t.ok = true;
    t.path = flow_trace_to_json(r.flows[1]);
    t.path["source"] = "10.1.0.1";
    t.path["destination"] = "10.2.0.1";
    t.path["port_from"] = "rxe";
    nlohmann::json rep =
        perf_report_to_json({"2026-11-29T16:00:00Z", "a1", "rxe_a1", 1, 0.7}, {t}, {});
    for (const auto& e : schema_errors(rep, "perf.schema.json")) ADD_FAILURE() << e;
    nlohmann::json wrong = rep;
    wrong["results"][0]["path"]["port_from"] = "guess";
    EXPECT_EQ(schema_errors(wrong, "perf.schema.json").size(), 1u);
    auto loaded = perf_report_from_json(rep);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(loaded->results[0].path["hops"][1]["name"], "s2");
}

}  // namespace
}  // namespace fabscope::perf
