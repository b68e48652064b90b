#include "reports/csv_report.h"

#include <fmt/format.h>

#include "reports/cables_sections.h"
#include "reports/escape.h"

namespace fabscope {
namespace {

std::string record(const std::vector<std::string>& fields) {
    std::string out;
    for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ',';
        out += csv_field(fields[i]);
    }
    return out + "\r\n";
}

std::string section(const std::string& name, const std::vector<std::string>& header,
                    const std::vector<std::vector<std::string>>& rows) {
    std::string out = "START_" + name + "\r\n" + record(header);
    for (const auto& r : rows) out += record(r);
    return out + "END_" + name + "\r\n\r\n";
}

std::string width_of(const Port* p) {
    return p && p->width_active ? std::string(name(*p->width_active)) : "";
}
std::string speed_of(const Port* p) {
    return p && p->speed_active ? std::string(name(*p->speed_active)) : "";
}
std::string counter_of(const Port& p, Counter c) {
    if (!p.counters) return "";
    auto v = p.counters->get(c);
    return v ? std::to_string(*v) : "";
}

constexpr Counter kPortCounters[] = {Counter::SymbolErrorCounter, Counter::LinkErrorRecoveryCounter,
                                     Counter::LinkDownedCounter,  Counter::PortRcvErrors,
                                     Counter::PortXmitDiscards,   Counter::PortXmitWait};

}  // namespace

std::string render_csv_report(const ReportModel& m) {
    std::string out;
    if (m.snapshot) {
        const Fabric& f = m.snapshot->fabric;
        std::vector<std::vector<std::string>> links;
        for (size_t li = 0; li < f.links().size(); ++li) {
            const Link& l = f.links()[li];
            const Node* a = f.node(l.a.node);
            const Node* b = f.node(l.b.node);
            const Port* pa = f.port(l.a);
            auto sev = m.link_severity(li);
            std::string why;
            for (size_t fi : m.link_findings[li]) {
                if (!why.empty()) why += "; ";
                why += m.findings[fi].summary;
            }
            links.push_back({format_guid(l.a.node), std::to_string(l.a.port),
                             a ? a->description : "", format_guid(l.b.node),
                             std::to_string(l.b.port), b ? b->description : "", width_of(pa),
                             speed_of(pa), pa ? std::string(name(pa->state)) : "",
                             sev ? std::string(name(*sev)) : "ok", why});
        }
        out += section("LINKS",
                       {"NodeGuid1", "PortNum1", "NodeDesc1", "NodeGuid2", "PortNum2", "NodeDesc2",
                        "Width", "Speed", "State", "Health", "Findings"},
                       links);
        std::vector<std::vector<std::string>> ports;
        for (const Node& n : f.nodes()) {
            for (const Port& p : n.ports) {
                if (p.num == 0 && n.type == NodeType::Switch) continue;
                std::vector<std::string> r{format_guid(n.guid),
                                           n.description,
                                           std::string(name(n.type)),
                                           std::to_string(p.num),
                                           format_guid(p.guid),
                                           std::to_string(p.lid),
                                           std::string(name(p.state)),
                                           std::string(name(p.phys_state)),
                                           width_of(&p),
                                           speed_of(&p),
                                           std::to_string(p.mtu_active),
                                           p.peer ? format_guid(p.peer->node) : "",
                                           p.peer ? std::to_string(p.peer->port) : ""};
                for (Counter c : kPortCounters) r.push_back(counter_of(p, c));
                ports.push_back(std::move(r));
            }
        }
        std::vector<std::string> header{"NodeGuid", "NodeDesc",  "NodeType",  "PortNum", "PortGuid",
                                        "LID",      "PortState", "PhysState", "Width",   "Speed",
                                        "MTU",      "PeerGuid",  "PeerPort"};
        for (Counter c : kPortCounters) header.emplace_back(name(c));
        out += section("PORTS", header, ports);
    }
    std::vector<std::vector<std::string>> findings;
    for (const ReportFinding& f : m.findings) {
        std::string where;
        for (const PortLabel& l : f.labels) {
            if (!where.empty()) where += ' ';
            where += label_name(l);
        }
        findings.push_back({std::string(name(f.severity)), f.kind, f.source, where, f.summary,
                            f.evidence.empty() ? "" : f.evidence.dump()});
    }
    out += section("FINDINGS", {"Severity", "Kind", "Source", "Where", "Summary", "Evidence"},
                   findings);
    if (!m.pairs.empty()) {
        std::vector<std::vector<std::string>> pairs;
        for (const PairCheck& p : m.pairs) {
            pairs.push_back({p.from, p.to, p.test, p.ok ? "ok" : "failed",
                             p.degraded ? "yes" : "no", p.ok ? fmt::format("{:.6g}", p.value) : "",
                             p.unit, p.message});
        }
        out += section(
            "PAIRS", {"From", "To", "Test", "Status", "Degraded", "Value", "Unit", "Note"}, pairs);
    }
    if (!m.cables.empty()) out += section("CABLES", cables_csv_header(), cables_csv_rows(m));
    if (m.congestion) {
        std::vector<std::vector<std::string>> rows;
        for (const CongestionRow& r : congestion_rows(*m.congestion)) {
            const PortLabel& l = r.port.label;
            rows.push_back({format_guid(l.node_guid), l.node, std::to_string(l.port),
                            fmt::format("{:.6g}", r.port.share), std::to_string(r.port.delta_ticks),
                            r.port.cleared ? "yes" : "no", r.role, r.root});
        }
        out += section(
            "CONGESTION",
            {"NodeGuid", "NodeDesc", "PortNum", "Share", "DeltaTicks", "Cleared", "Role", "Root"},
            rows);
    }
    return out;
}

}  // namespace fabscope
