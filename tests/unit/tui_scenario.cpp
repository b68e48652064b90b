#include "tui_scenario.h"

#include "test_fabrics.h"

namespace fabscope::testing {
namespace {

/// Counters on every active port: `data` words sent and received so far.
void give_counters(std::vector<Node>& nodes, int64_t at_ms, uint64_t data) {
    for (Node& n : nodes) {
        for (Port& p : n.ports) {
            if (p.num == 0 && n.type == NodeType::Switch) continue;
            if (!p.link_up()) continue;
            PortCounters pc;
            pc.extended = true;
            pc.read_at_ms = at_ms;
            for (int i = 0; i < kCounterCount; ++i) pc.set(static_cast<Counter>(i), 0);
            pc.set(Counter::PortXmitData, data);
            pc.set(Counter::PortRcvData, data);
            p.counters = pc;
        }
    }
}

tui::Reading reading(std::vector<Node> nodes, int64_t at_ms) {
    auto f = Fabric::build(std::move(nodes));
    if (!f) throw std::runtime_error(f.error().message);
    tui::Reading r;
    r.snapshot.fabric = std::move(f).value();
    r.snapshot.source.method = "sweep";
    r.snapshot.source.duration_s = 0.08;
    r.taken_ms = at_ms;
    return r;
}

perf::TestResult result(const std::string& peer, double gbps, bool ok = true) {
    perf::TestResult r;
    r.peer = peer;
    r.peer_host = peer;
    r.ok = ok;
    r.avg_gbps = gbps;
    r.spec.size = 65536;
    if (!ok)
        r.error = "the server at " + peer +
                  " closed the connection during the test: it stopped or crashed";
    return r;
}

}  // namespace

std::vector<perf::PerfReport> scenario_perf() {
    perf::PerfReport a;
    a.meta.host = "h0001";
    a.results = {result("h0005", 0.40), result("h0009", 0.39), result("h0013", 0.09)};
    perf::PerfReport b;
    b.meta.host = "h0005";
    b.results = {result("h0001", 0.41), result("h0009", 0.38), result("h0013", 0, false)};
    return {a, b};
}

std::shared_ptr<const tui::TuiData> tui_scenario(bool with_perf) {
    tui::BuilderConfig cfg;
    if (with_perf) {
        cfg.perf = scenario_perf();
        cfg.perf_names = {"h0001.json", "h0005.json"};
    }
    return tui_scenario_with(std::move(cfg));
}

std::shared_ptr<const tui::TuiData> tui_scenario_with(tui::BuilderConfig cfg) {
    const LeafSpineShape shape{.spines = 2, .leaves = 4, .hosts_per_leaf = 4};
    auto first = leaf_spine_nodes(shape);
    give_counters(first, kFirstReadingMs, 1000);
    auto second = leaf_spine_nodes(shape);
    unplug(second, "leaf02", 5);  // leaf02's uplink to spine01
    set_link_width(second, "leaf03", 2, Width::X1, WidthSet{Width::X1, Width::X4});
    give_counters(second, kSecondReadingMs, 1000 + 125'000'000);  // 4 Gb in 2 s: 2 Gb/s
    PortCounters& bad = *node_named(second, "leaf01").port(5)->counters;
    bad.set(Counter::SymbolErrorCounter, 40);
    bad.set(Counter::PortXmitWait, 1'000'000'000);  // about 8% of 2 s at HDR

    cfg.source = "mlx5_0 port 1";
    cfg.live = true;
    cfg.interval_s = 2;
    tui::DataBuilder b(std::move(cfg));
    b.add(reading(std::move(first), kFirstReadingMs));
    return b.add(reading(std::move(second), kSecondReadingMs));
}

std::shared_ptr<const tui::TuiData> tui_large(int spines, int leaves, int hosts_per_leaf) {
    auto nodes =
        leaf_spine_nodes({.spines = spines, .leaves = leaves, .hosts_per_leaf = hosts_per_leaf});
    give_counters(nodes, kFirstReadingMs, 1000);
    auto later = nodes;
    give_counters(later, kSecondReadingMs, 5000);
    tui::BuilderConfig cfg;
    cfg.source = "mlx5_0 port 1";
    tui::DataBuilder b(std::move(cfg));
    b.add(reading(std::move(nodes), kFirstReadingMs));
    return b.add(reading(std::move(later), kSecondReadingMs));
}

tui::Reading counted_reading(std::vector<Node> nodes, int64_t at_ms) {
    for (Node& n : nodes) {
        for (Port& p : n.ports) {
            if ((p.num == 0 && n.type == NodeType::Switch) || !p.link_up()) continue;
            if (!p.counters) {
                p.counters = PortCounters{};
                p.counters->extended = true;
                for (int i = 0; i < kCounterCount; ++i) p.counters->set(static_cast<Counter>(i), 0);
            }
            p.counters->read_at_ms = at_ms;
        }
    }
    tui::Reading r;
    r.snapshot.fabric = Fabric::build(std::move(nodes)).value();
    r.taken_ms = at_ms;
    return r;
}

}  // namespace fabscope::testing
