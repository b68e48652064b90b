#include "check/sm_checks.h"

#include <fmt/format.h>

namespace fabscope {
namespace {

struct SmSeen {
    PortRef at;
    SmInfo info;
};

struct Census {
    std::vector<SmSeen> masters;
    std::vector<SmSeen> standby;
    std::vector<PortRef> silent;  ///< claim IsSM, no SMInfo
};

/// The SMs of each plane (a subnet has its own SMs), by the plane index.
std::map<uint16_t, Census> census(const Fabric& f) {
    std::map<uint16_t, Census> planes;
    for (const Node& n : f.nodes()) {
        Census& c = planes[n.plane];
        for (const Port& p : n.ports) {
            if (n.type == NodeType::Switch && p.num != 0) continue;
            const PortRef at{n.guid, p.num};
            if (p.sm) {
                if (p.sm->state == SmState::Master) c.masters.push_back({at, *p.sm});
                if (p.sm->state == SmState::Standby) c.standby.push_back({at, *p.sm});
            } else if ((p.capability_mask & kCapIsSM) != 0) {
                c.silent.push_back(at);
            }
        }
    }
    return planes;
}

std::string list(const Fabric& f, const std::vector<SmSeen>& sms) {
    std::string s;
    for (const SmSeen& x : sms)
        s += fmt::format("{}{} (priority {})", s.empty() ? "" : ", ", describe(f, x.at),
                         x.info.priority);
    return s;
}

nlohmann::json sms_json(const std::vector<SmSeen>& sms) {
    nlohmann::json a = nlohmann::json::array();
    for (const SmSeen& x : sms)
        a.push_back({{"guid", format_guid(x.info.guid)},
                     {"priority", x.info.priority},
                     {"act_count", x.info.act_count}});
    return a;
}

std::vector<PortRef> ports_of(const std::vector<SmSeen>& sms) {
    std::vector<PortRef> out;
    out.reserve(sms.size());
    for (const SmSeen& x : sms) out.push_back(x.at);
    return out;
}

/// The master's ActCount over the interval; our own second Get is answered
/// and counted, so a rise of one is an SM that did nothing else.
void activity(const SmCheckInput& in, const SmSeen& master, std::vector<Finding>& out) {
    const Fabric& f = in.fabric;
    auto it = in.after->find(master.at);
    if (it == in.after->end()) {
        out.push_back(make_finding(
            "sm_not_answering", Severity::Error,
            fmt::format("master SM {} answered SMInfo in the sweep but not {:.0f} s later: the SM "
                        "stopped or hangs (check the opensm process and its log)",
                        describe(f, master.at), in.interval_s),
            {master.at}, {{"interval_s", in.interval_s}}));
        return;
    }
    const uint32_t rise = it->second.act_count - master.info.act_count;
    if (rise <= 1 && in.interval_s >= kSmActivityMinIntervalS) {
        out.push_back(make_finding(
            "sm_inactive", Severity::Warning,
            fmt::format("master SM {}: ActCount {} -> {} in {:.0f} s, only the answers to "
                        "fabscope's own queries: it has stopped sweeping (a hung SM, or "
                        "sweep_interval 0)",
                        describe(f, master.at), master.info.act_count, it->second.act_count,
                        in.interval_s),
            {master.at},
            {{"act_count_before", master.info.act_count},
             {"act_count_after", it->second.act_count},
             {"interval_s", in.interval_s}}));
    }
}

/// One plane's findings; `plane` names it where the fabric has several.
void check_plane(const SmCheckInput& in, const Census& c, const std::string& plane,
                 std::vector<Finding>& out) {
    const Fabric& f = in.fabric;
    for (const PortRef& at : c.silent) {
        out.push_back(make_finding(
            "sm_not_answering", Severity::Error,
            fmt::format("{} claims to run an SM (IsSM) but does not answer SMInfo: a hung or "
                        "half-started SM",
                        describe(f, at)),
            {at}, nlohmann::json::object()));
    }
    if (c.masters.empty()) {
        out.push_back(make_finding("sm_no_master", Severity::Error,
                                   fmt::format("no master SM{}: {} standby, {} silent; nothing "
                                               "assigns LIDs or routes after a change",
                                               plane, c.standby.size(), c.silent.size()),
                                   ports_of(c.standby), {{"standby", sms_json(c.standby)}}));
    } else if (c.masters.size() > 1) {
        out.push_back(make_finding(
            "sm_masters", Severity::Error,
            fmt::format("{} master SMs{}: {}: they fight over LIDs and routes (a split subnet, or "
                        "two SMs with different SM_Keys)",
                        c.masters.size(), plane, list(f, c.masters)),
            ports_of(c.masters), {{"masters", sms_json(c.masters)}}));
    }
    if (in.planned_standby && static_cast<int>(c.standby.size()) < *in.planned_standby) {
        out.push_back(make_finding(
            "sm_standby_missing", Severity::Warning,
            fmt::format("{} standby SM{}{} where the plan asks for {}{}: a master that fails is "
                        "not replaced",
                        c.standby.size(), c.standby.size() == 1 ? "" : "s", plane,
                        *in.planned_standby,
                        c.standby.empty() ? "" : " (" + list(f, c.standby) + ")"),
            ports_of(c.standby),
            {{"standby", sms_json(c.standby)}, {"planned", *in.planned_standby}}));
    }
    if (in.after && c.masters.size() == 1) activity(in, c.masters.front(), out);
}

}  // namespace

std::vector<Finding> check_subnet_managers(const SmCheckInput& in) {
    std::vector<Finding> out;
    if (!in.sm_read) return out;
    const auto planes = census(in.fabric);
    for (const auto& [index, c] : planes) {
        check_plane(in, c, planes.size() > 1 ? fmt::format(" on plane {}", index + 1) : "", out);
    }
    return out;
}

std::string sm_check_detail(const SmCheckInput& in) {
    if (!in.sm_read) return "SMInfo not read";
    const Fabric& f = in.fabric;
    std::string s;
    const auto planes = census(f);
    for (const auto& [index, c] : planes) {
        if (!s.empty()) s += "; ";
        if (planes.size() > 1) s += fmt::format("plane {}: ", index + 1);
        s += c.masters.empty() ? "no master" : "master " + list(f, c.masters);
        s += fmt::format(", {} standby", c.standby.size());
        if (!in.after || c.masters.size() != 1) continue;
        auto it = in.after->find(c.masters.front().at);
        if (it == in.after->end()) continue;
        s += fmt::format("; ActCount +{} in {:.0f} s",
                         it->second.act_count - c.masters.front().info.act_count, in.interval_s);
        if (in.interval_s < kSmActivityMinIntervalS)
            s += fmt::format(" (under {:.0f} s: too short to call a master idle)",
                             kSmActivityMinIntervalS);
    }
    return s;
}

}  // namespace fabscope
