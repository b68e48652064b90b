#include "discover/sweep_context.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fabscope {

Lid SweptNode::lid(uint8_t port) const {
    uint8_t p = is_switch() ? 0 : port;
    auto it = replies.port_info.find(p);
    if (it == replies.port_info.end()) return 0;
    return decode_port_info(SmpData(it->second), p, 0).lid;
}

bool SweptNode::port_up(uint8_t port) const {
    auto it = replies.port_info.find(port);
    return it != replies.port_info.end() &&
           decode_port_info(SmpData(it->second), port, 0).link_up();
}

bool SweptNode::runs_sm() const {
    for (const auto& [port, raw] : replies.port_info) {
        if ((decode_port_capability_mask(SmpData(raw)) & kCapIsSM) != 0) return true;
    }
    return false;
}

PmaModel SweptNode::pma_model() const {
    return {replies.info.vendor_id, replies.info.device_id, replies.info.revision};
}

uint32_t SweptNode::capability_mask(uint8_t port) const {
    auto it = replies.port_info.find(is_switch() ? 0 : port);
    return it == replies.port_info.end() ? 0 : decode_port_capability_mask(SmpData(it->second));
}

uint32_t SweptNode::capability_mask2(uint8_t port) const {
    auto it = replies.port_info.find(is_switch() ? 0 : port);
    if (it == replies.port_info.end()) return 0;
    if ((decode_port_capability_mask(SmpData(it->second)) & kCapIsCapabilityMask2Supported) == 0)
        return 0;
    return decode_port_info_extra(SmpData(it->second)).capability_mask2;
}

std::string SweepContext::where(const SweptNode& n) const {
    return n.replies.description.empty() ? format_guid(n.guid()) : n.replies.description;
}

void SweepContext::problem(std::string kind, Severity sev, std::string summary,
                           std::vector<PortRef> at, nlohmann::json evidence) {
    problems.push_back(
        Finding{std::move(kind), sev, std::move(summary), std::move(at), std::move(evidence)});
}

void SweepContext::failed(const SweptNode& n, uint8_t port, std::string what,
                          const MadResult& res) {
    if (res.outcome == MadResult::Outcome::Cancelled) return;
    failures_[{n.guid(), std::move(what), res.detail}].push_back(port);
}

void SweepContext::report_failures() {
    for (const auto& [key, ports] : failures_) {
        const auto& [guid, what, reason] = key;
        const SweptNode& n = nodes.at(guid);
        std::string which;
        if (ports.size() > 1 || ports.front() != 0) {
            which =
                fmt::format(" of port{} {}", ports.size() == 1 ? "" : "s", fmt::join(ports, ","));
        }
        std::vector<PortRef> at;
        for (uint8_t p : ports) at.push_back(PortRef{guid, p});
        std::string hint;
        if (reason.find("(LID ") != std::string::npos &&
            n.replies.port_info.count(n.is_switch() ? 0 : ports.front())) {
            hint = "; it answers by directed route, so the LID-routed path to it is losing MADs";
        }
        problem(
            "query_failed", Severity::Warning,
            fmt::format("{}: {}{} not read: {}{}", where(n), what, which, reason, hint),
            std::move(at),
            {{"attribute", what}, {"reason", reason}, {"path", n.path.str()}, {"ports", ports}});
    }
    failures_.clear();
}

}  // namespace fabscope
