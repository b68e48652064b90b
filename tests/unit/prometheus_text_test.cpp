// The Prometheus text exposition of a fabric: one family per name with HELP
// and TYPE, counters named *_total, label values escaped, ports labelled
// with their peers; and the textfile written whole or not at all.

#include "reports/prometheus_text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "reports/prometheus_textfile.h"
#include "test_fabrics.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

std::string metric_name(const std::string& sample) {
    return sample.substr(0, sample.find_first_of("{ "));
}

Fabric fabric_with_counters() {
    auto nodes = testing::leaf_spine_nodes({});
    Node& leaf = testing::node_named(nodes, "leaf01");
    PortCounters pc;
    pc.set(Counter::SymbolErrorCounter, 5);
    pc.set(Counter::PortXmitData, 1000);
    pc.set(Counter::PortXmitWait, 7);
    pc.extended = true;
    leaf.port(1)->counters = pc;
    auto f = Fabric::build(std::move(nodes));
    return std::move(f).value();
}

PromInput input_for(const Fabric& f, const std::vector<Finding>& findings) {
    PromInput in;
    in.fabric = &f;
    in.findings = &findings;
    in.sweep_duration_s = 0.25;
    in.sweep_finished_unix_s = 1764590000;
    in.version = "0.1.0";
    return in;
}

TEST(PrometheusText, OneFamilyPerNameWithHelpAndTypeAndConventionalNames) {
    Fabric f = fabric_with_counters();
    std::vector<Finding> findings{{"link_below_peers", Severity::Warning, "x", {}, {}},
                                  {"link_below_peers", Severity::Warning, "y", {}, {}},
                                  {"unreachable", Severity::Error, "z", {}, {}}};
    PromInput in = input_for(f, findings);
    in.exporter = ExporterCounts{3, 1, true};
    std::string text = render_prometheus(in);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');

    const std::regex name_re("fabscope_[a-z0-9_]+");
    std::map<std::string, std::string> type_of;
    std::set<std::string> closed;  // families whose samples have ended
    std::string current;
    bool help_seen = false;
    for (const std::string& l : lines_of(text)) {
        if (l.rfind("# HELP ", 0) == 0) {
            std::string name = l.substr(7, l.find(' ', 7) - 7);
            EXPECT_TRUE(std::regex_match(name, name_re)) << name;
            EXPECT_EQ(type_of.count(name), 0U) << "second family " << name;
            if (!current.empty()) closed.insert(current);
            current = name;
            help_seen = true;
            continue;
        }
        if (l.rfind("# TYPE ", 0) == 0) {
            ASSERT_TRUE(help_seen);
            std::string rest = l.substr(7);
            std::string name = rest.substr(0, rest.find(' '));
            std::string type = rest.substr(rest.find(' ') + 1);
            EXPECT_EQ(name, current);
            type_of[name] = type;
            // Counters end in _total and nothing else does.
            bool total = name.size() > 6 && name.substr(name.size() - 6) == "_total";
            EXPECT_EQ(type == "counter", total) << name;
            EXPECT_TRUE(type == "counter" || type == "gauge") << type;
            continue;
        }
        std::string name = metric_name(l);
        EXPECT_EQ(name, current) << "sample outside its family: " << l;
        EXPECT_EQ(closed.count(name), 0U);
    }
    for (Counter c : {Counter::SymbolErrorCounter, Counter::PortXmitData, Counter::PortXmitWait}) {
        EXPECT_EQ(type_of[std::string(prom_counter_name(c))], "counter");
    }
    EXPECT_NE(text.find("fabscope_sweeps_total 3\n"), std::string::npos);
    EXPECT_NE(text.find("fabscope_sweep_failures_total 1\n"), std::string::npos);
    EXPECT_NE(text.find("fabscope_last_sweep_success 1\n"), std::string::npos);
    EXPECT_NE(text.find("fabscope_sweep_duration_seconds 0.25\n"), std::string::npos);
    EXPECT_NE(text.find("fabscope_last_sweep_success_timestamp_seconds 1764590000\n"),
              std::string::npos);
    EXPECT_NE(text.find("fabscope_findings{kind=\"link_below_peers\",severity=\"warning\"} 2\n"),
              std::string::npos);
    EXPECT_NE(text.find("fabscope_findings{kind=\"unreachable\",severity=\"error\"} 1\n"),
              std::string::npos);
}

TEST(PrometheusText, EveryPortLabelledWithNodeGuidPortAndPeer) {
    Fabric f = fabric_with_counters();
    std::vector<Finding> none;
    std::string text = render_prometheus(input_for(f, none));
    const std::string labels =
        "{node=\"leaf01\",node_guid=\"0x0000000000002001\",port=\"1\",peer_node=\"h0001 "
        "HCA-1\",peer_node_guid=\"0x0000000000001001\",peer_port=\"1\"}";
    EXPECT_NE(text.find("fabscope_port_symbol_errors_total" + labels + " 5\n"), std::string::npos)
        << text.substr(0, 4000);
    // PortXmitData counts 4-octet units; the metric is in bytes.
    EXPECT_NE(text.find("fabscope_port_transmit_bytes_total" + labels + " 4000\n"),
              std::string::npos);
    EXPECT_NE(text.find("fabscope_port_transmit_wait_ticks_total" + labels + " 7\n"),
              std::string::npos);
    EXPECT_NE(text.find("fabscope_port_link_width_lanes" + labels + " 4\n"), std::string::npos);
    EXPECT_NE(text.find("fabscope_port_link_speed_bytes_per_second" + labels + " 25000000000\n"),
              std::string::npos);
    EXPECT_NE(text.find("fabscope_port_state" + labels + " 4\n"), std::string::npos);
    EXPECT_NE(text.find("fabscope_port_link_up" + labels + " 1\n"), std::string::npos);
    // Only the port that was read has counters.
    EXPECT_EQ(text.find("fabscope_port_symbol_errors_total{node=\"leaf02\""), std::string::npos);
    // A switch's port 0 has no link: not exported.
    EXPECT_EQ(text.find("node=\"leaf01\",node_guid=\"0x0000000000002001\",port=\"0\""),
              std::string::npos);
}

TEST(PrometheusText, LabelValuesAndHelpAreEscaped) {
    EXPECT_EQ(prom_escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    EXPECT_EQ(prom_escape_help("a\"b\\c\nd"), "a\"b\\\\c\\nd");
    // A node description off the wire, never trusted.
    auto nodes = testing::leaf_spine_nodes({});
    testing::node_named(nodes, "leaf01").description = "evil\"} 1\nfabscope_up{x=\"\\";
    auto f = Fabric::build(std::move(nodes));
    ASSERT_TRUE(f);
    std::vector<Finding> none;
    std::string text = render_prometheus(input_for(*f, none));
    EXPECT_NE(text.find("node=\"evil\\\"} 1\\nfabscope_up{x=\\\"\\\\\""), std::string::npos);
    for (const std::string& l : lines_of(text)) {
        EXPECT_EQ(l.rfind("fabscope_up", 0), std::string::npos) << "injected a line: " << l;
    }
}

TEST(PrometheusText, BeforeTheFirstSweepOnlyTheExporterSpeaks) {
    PromInput in;
    in.exporter = ExporterCounts{};
    in.version = "0.1.0";
    std::string text = render_prometheus(in);
    EXPECT_NE(text.find("fabscope_last_sweep_success 0\n"), std::string::npos);
    EXPECT_NE(text.find("fabscope_sweeps_total 0\n"), std::string::npos);
    EXPECT_EQ(text.find("fabscope_port_"), std::string::npos);
    EXPECT_EQ(text.find("fabscope_sweep_duration_seconds"), std::string::npos);
}

TEST(PrometheusText, CountersFromValidatesSecondReadingWin) {
    Fabric f = fabric_with_counters();
    std::vector<Finding> none;
    CounterReadings later;
    PortCounters pc;
    pc.set(Counter::SymbolErrorCounter, 9);
    later[PortRef{0x2001, 1}] = pc;
    PromInput in = input_for(f, none);
    in.counters = &later;
    std::string text = render_prometheus(in);
    EXPECT_NE(text.find("fabscope_port_symbol_errors_total{node=\"leaf01\""), std::string::npos);
    EXPECT_NE(text.find("peer_port=\"1\"} 9\n"), std::string::npos);
    EXPECT_EQ(text.find("peer_port=\"1\"} 5\n"), std::string::npos);
}

/// The per-port families a set of groups writes, counted on a fabric
/// whose every port has every counter.
std::map<std::string, size_t> families_of(const std::string& text) {
    std::map<std::string, size_t> n;
    for (const std::string& l : lines_of(text)) {
        if (l.rfind("fabscope_port_", 0) == 0) ++n[l.substr(0, l.find('{'))];
    }
    return n;
}

TEST(PrometheusText, PortMetricGroupsKeepTheDefaultToWhatAlertsAndDashboardsUse) {
    std::vector<Node> nodes =
        testing::leaf_spine_nodes({.spines = 1, .leaves = 1, .hosts_per_leaf = 2});
    for (Node& n : nodes) {
        for (Port& p : n.ports) {
            if (p.num == 0 && n.type == NodeType::Switch) continue;
            PortCounters pc;
            pc.extended = true;
            for (int i = 0; i < kCounterCount; ++i) pc.set(static_cast<Counter>(i), 1);
            p.counters = pc;
        }
    }
    Fabric f = Fabric::build(std::move(nodes)).value();
    const size_t ports = 2 + 3 + 1;  // two hosts, the leaf's three, the spine's one
    std::vector<Finding> none;
    PromInput in = input_for(f, none);
    const auto by_default = families_of(render_prometheus(in));
    in.port_metrics = kAllPortMetrics;
    const auto all = families_of(render_prometheus(in));
    // Everything: every counter (the details too, as read) and every gauge.
    EXPECT_EQ(all.size(), static_cast<size_t>(kCounterCount) + 6);
    for (const auto& [name, n] : all) EXPECT_EQ(n, ports) << name;
    // The default: link (5), errors, waits and discards, bytes; no packet
    // counters, no lane rate.
    EXPECT_EQ(by_default.size(), static_cast<size_t>(kCounterCount) + 6 - 6 - 1);
    for (const char* gone :
         {"fabscope_port_transmit_packets_total", "fabscope_port_multicast_receive_packets_total",
          "fabscope_port_link_lane_speed_bytes_per_second"})
        EXPECT_EQ(by_default.count(gone), 0U) << gone;
    for (const char* kept :
         {"fabscope_port_link_up", "fabscope_port_link_signal_bytes_per_second",
          "fabscope_port_symbol_errors_total", "fabscope_port_transmit_wait_ticks_total",
          "fabscope_port_receive_looping_errors_total", "fabscope_port_transmit_bytes_total"})
        EXPECT_EQ(by_default.count(kept), 1U) << kept;
    // Only the errors: no link gauges, no bytes.
    in.port_metrics = parse_port_metrics("errors").value();
    const auto errors = families_of(render_prometheus(in));
    EXPECT_EQ(errors.count("fabscope_port_link_up"), 0U);
    EXPECT_EQ(errors.count("fabscope_port_receive_bytes_total"), 0U);
    EXPECT_EQ(errors.count("fabscope_port_symbol_errors_total"), 1U);

    EXPECT_EQ(parse_port_metrics("default").value(), kDefaultPortMetrics);
    EXPECT_EQ(parse_port_metrics("all").value(), kAllPortMetrics);
    EXPECT_EQ(port_metrics_names(parse_port_metrics("default,packets").value()),
              "link,errors,traffic,packets");
    EXPECT_EQ(port_metrics_names(kAllPortMetrics), "link,errors,traffic,packets,lane");
    for (const char* bad : {"", "links", "default,", "errors,,traffic"}) {
        auto r = parse_port_metrics(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, kExitUsage);
        EXPECT_NE(r.error().message.find("not a group of port metrics"), std::string::npos);
    }
}

TEST(PrometheusTextfile, WrittenWholeByRenameAndNoTemporaryLeft) {
    fs::path dir = fs::temp_directory_path() / ("fabscope-prom-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::path file = dir / "fabscope.prom";
    {
        std::ofstream old(file);
        old << "old\n";
    }
    Fabric f = fabric_with_counters();
    std::vector<Finding> none;
    PromInput in = input_for(f, none);
    ASSERT_TRUE(write_prom_textfile(file.string(), in));
    std::ifstream back(file);
    std::stringstream got;
    got << back.rdbuf();
    EXPECT_EQ(got.str(), render_prometheus(in));
    size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
    EXPECT_EQ(entries, 1U) << "a temporary file was left behind";

    auto bad = write_prom_textfile((dir / "no-such-dir" / "x.prom").string(), in);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, kExitUsage);
    EXPECT_NE(bad.error().message.find("no-such-dir/x.prom"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace fabscope
