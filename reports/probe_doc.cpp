#include "reports/probe_doc.h"

#include "model/json_io.h"

namespace fabscope {
namespace {

using nlohmann::json;

constexpr size_t kMaxPeers = 16384;
constexpr size_t kMaxFindings = 1024;

std::optional<double> maybe(const json& j, const char* key) {
    if (!j.contains(key)) return std::nullopt;
    return json_io::get_double(j, key);
}

ProbePeerDoc peer_from_json(const json& p) {
    ProbePeerDoc d;
    d.name = json_io::get_string(p, "name");
    d.leaf = json_io::get_string(p, "leaf", "");
    d.state = json_io::get_string(p, "state", "");
    d.sent = json_io::get_uint<uint64_t>(p, "sent");
    d.answered = json_io::get_uint<uint64_t>(p, "answered");
    d.lost = json_io::get_uint<uint64_t>(p, "lost");
    d.loss_ratio = json_io::get_double(p, "loss_ratio");
    if (d.loss_ratio < 0 || d.loss_ratio > 1) json_io::fail(p.at("loss_ratio"), "is not 0 .. 1");
    d.p50_us = maybe(p, "p50_us");
    d.p99_us = maybe(p, "p99_us");
    d.baseline_p99_us = maybe(p, "baseline_p99_us");
    return d;
}

}  // namespace

bool looks_like_probe(const json& j) {
    return j.is_object() && j.value("tool", json()) == "fabscope probe";
}

Result<ProbeDoc> probe_doc_from_json(const json& j) {
    return json_io::guarded([&]() -> Result<ProbeDoc> {
        ProbeDoc d;
        d.host = json_io::get_string(j, "host");
        d.leaf = json_io::get_string(j, "leaf", "");
        d.interval = json_io::get_uint<uint64_t>(j, "interval");
        d.interval_s = json_io::get_double(j, "interval_s");
        d.window = json_io::get_uint<uint32_t>(j, "window");
        const json& peers = json_io::get_array(j, "peers");
        if (peers.size() > kMaxPeers) json_io::fail(peers, "has more than 16,384 peers");
        for (const json& p : peers) d.peers.push_back(peer_from_json(p));
        const json& findings = json_io::get_array(j, "findings");
        if (findings.size() > kMaxFindings) json_io::fail(findings, "has more than 1,024 findings");
        for (const json& f : findings) {
            d.findings.push_back({json_io::get_string(f, "kind"),
                                  json_io::get_string(f, "severity"),
                                  json_io::get_string(f, "summary")});
        }
        return d;
    });
}

}  // namespace fabscope
