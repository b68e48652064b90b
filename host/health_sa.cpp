#include "host/health_sa.h"

#include <fmt/format.h>

namespace fabscope::host {

std::vector<SaPathTarget> sa_path_targets(const HostInventory& inv) {
    std::vector<SaPathTarget> out;
    for (const auto& d : inv.devices) {
        for (const auto& p : d.ports) {
            // check_ib_sm names the ports without an SM or a LID.
            if (p.link_layer != "InfiniBand" || !p.active()) continue;
            if (!p.lid || *p.lid == 0 || !p.sm_lid || *p.sm_lid == 0) continue;
            if (p.gids.empty() || p.gids.front().index != 0) continue;
            out.push_back({d.name, p.port, *p.lid, *p.sm_lid, p.gids.front().gid});
        }
    }
    return out;
}

std::vector<HealthFinding> check_sa_path(const std::vector<SaPathCheck>& checks) {
    std::vector<HealthFinding> out;
    for (const auto& c : checks) {
        if (c.outcome == "ok") continue;
        const SaPathTarget& t = c.target;
        std::string subject = port_key(t.device, t.port);
        if (c.outcome == "cannot_run") {
            out.push_back({"sa_path", HealthSeverity::Warning, subject,
                           fmt::format("{} port {}: could not ask the SA at SM LID {} for a "
                                       "path: {}",
                                       t.device, t.port, t.sm_lid, c.detail)});
            continue;
        }
        out.push_back({"sa_path", HealthSeverity::Error, subject,
                       fmt::format("{} port {}: no SA path record to itself (SM LID {}): {}",
                                   t.device, t.port, t.sm_lid, c.detail)});
    }
    return out;
}

nlohmann::json sa_path_to_json(const std::vector<SaPathCheck>& checks) {
    auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : checks) {
        out.push_back({{"device", c.target.device},
                       {"port", c.target.port},
                       {"lid", c.target.lid},
                       {"sm_lid", c.target.sm_lid},
                       {"gid", c.target.gid},
                       {"outcome", c.outcome},
                       {"detail", c.detail},
                       {"elapsed_ms", c.elapsed_ms},
                       {"attempts", c.attempts},
                       {"path", c.outcome == "ok" ? nlohmann::json{{"slid", opt(c.slid)},
                                                                   {"dlid", opt(c.dlid)},
                                                                   {"mtu", opt(c.mtu)},
                                                                   {"sl", opt(c.sl)},
                                                                   {"pkey", opt(c.pkey)}}
                                                  : nlohmann::json(nullptr)}});
    }
    return out;
}

}  // namespace fabscope::host
