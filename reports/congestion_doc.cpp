// Reading a congestion report back: what `fabscope congestion --json` wrote,
// checked value by value (the json_io getters name the path of a bad one).

#include "reports/congestion_doc.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/json_io.h"
#include "reports/run_json.h"

namespace fabscope {
namespace {

CongestionPort port_from(const nlohmann::json& j) {
    CongestionPort p;
    p.label = port_label_from_json(j);
    p.share = json_io::get_double(j, "share");
    p.delta_ticks = json_io::get_uint<uint64_t>(j, "delta_ticks");
    p.interval_s = json_io::get_double(j, "interval_s", 0);
    p.cleared = json_io::get_bool(j, "cleared_during_interval", false);
    if (j.contains("chain")) {
        for (const nlohmann::json& c : json_io::get_array(j, "chain"))
            p.chain.push_back(port_label_from_json(c));
    }
    return p;
}

bool same_port(const PortLabel& a, const PortLabel& b) {
    return a.node_guid == b.node_guid && a.port == b.port;
}

}  // namespace

std::vector<CongestionRow> congestion_rows(const CongestionDoc& d) {
    std::vector<CongestionRow> rows;
    auto seen = [&](const PortLabel& l) {
        return std::any_of(rows.begin(), rows.end(),
                           [&](const CongestionRow& r) { return same_port(r.port.label, l); });
    };
    for (const CongestionTreeDoc& t : d.trees) {
        if (!seen(t.root.label)) rows.push_back({t.root, "root", ""});
    }
    for (const CongestionTreeDoc& t : d.trees) {
        for (const CongestionPort& v : t.victims) {
            if (!seen(v.label)) rows.push_back({v, "victim", label_name(t.root.label)});
        }
    }
    for (const CongestionPort& h : d.hottest) {
        if (!seen(h.label)) rows.push_back({h, "none", ""});
    }
    return rows;
}

Result<CongestionDoc> congestion_doc_from_json(const nlohmann::json& j) {
    auto format = j.is_object() ? j.find("format") : j.end();
    if (format == j.end() || *format != "fabscope-congestion")
        return make_error("not a fabscope congestion report");
    if (auto v = check_version_1(j, "congestion report"); !v) return v.error();
    return json_io::guarded([&]() -> Result<CongestionDoc> {
        CongestionDoc d;
        d.started = json_io::get_string(j, "started", "");
        d.fabric_from = json_io::get_string(j, "fabric_from", "");
        d.round = static_cast<int>(json_io::get_uint<uint32_t>(j, "round", 1));
        d.interval_s = json_io::get_double(j, "interval_s");
        d.ports_read = json_io::get_uint<size_t>(j, "ports_read");
        d.ports_unanswered = json_io::get_uint<size_t>(j, "ports_unanswered", 0);
        if (j.contains("thresholds"))
            d.warn = json_io::get_double(json_io::get_object(j, "thresholds"), "xmit_wait_warn", 0);
        d.result = json_io::get_string(j, "result");
        if (d.result != "pass" && d.result != "fail" && d.result != "interrupted")
            json_io::fail(j.at("result"), "must be one of pass, fail, interrupted");
        d.interrupted = json_io::get_bool(j, "interrupted", d.result == "interrupted");
        for (const nlohmann::json& h : json_io::get_array(j, "hottest"))
            d.hottest.push_back(port_from(h));
        for (const nlohmann::json& t : json_io::get_array(j, "trees")) {
            CongestionTreeDoc tree;
            tree.root = port_from(json_io::get_object(t, "root"));
            tree.cause = json_io::get_string(t, "cause");
            if (tree.cause != "slow_receiver" && tree.cause != "bottleneck_link" &&
                tree.cause != "loop")
                json_io::fail(t.at("cause"), "must be one of slow_receiver, bottleneck_link, loop");
            for (const nlohmann::json& v : json_io::get_array(t, "victims"))
                tree.victims.push_back(port_from(v));
            d.trees.push_back(std::move(tree));
        }
        for (const nlohmann::json& x : json_io::get_array(j, "findings"))
            d.findings.push_back(report_finding_from_json(x, "congestion"));
        return d;
    });
}

}  // namespace fabscope
