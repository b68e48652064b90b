#include "congestion/dcb_settings.h"

#include <fmt/format.h>

#include <array>
#include <filesystem>

#include "util/input_file.h"

namespace fabscope {
namespace {

constexpr int kSelDscp = 5;
constexpr int kRoceV2Port = 4791;
constexpr int kRoceV1Ethertype = 0x8915;
constexpr uint64_t kMaxDcbFile = 1 << 20;

// IEEE_8021QAZ_APP_SEL_* 1..5 by the names dcb.json uses.
constexpr std::array<const char*, 5> kSelectors = {"ethertype", "tcp", "udp", "any", "dscp"};

}  // namespace

std::string DcbSettings::trust() const {
    for (const DcbApp& a : apps) {
        if (a.selector == kSelDscp) return "dscp";
    }
    return "pcp";
}

std::optional<int> DcbSettings::roce_priority() const {
    for (const DcbApp& a : apps) {
        if ((a.selector == 3 || a.selector == 4) && a.protocol == kRoceV2Port) return a.priority;
    }
    for (const DcbApp& a : apps) {
        if (a.selector == 1 && a.protocol == kRoceV1Ethertype) return a.priority;
    }
    return std::nullopt;
}

std::string DcbSettings::unavailable_message() const {
    return fmt::format("DCB not available on {} ({})", netdev,
                       unavailable.empty() ? "no settings" : unavailable);
}

nlohmann::json dcb_to_json(const DcbSettings& s) {
    if (!s.available) return {{"available", false}, {"unavailable", s.unavailable}};
    nlohmann::json pfc = nlohmann::json::array();
    for (int p = 0; p < 8; ++p) {
        if (s.pfc_on(p)) pfc.push_back(p);
    }
    nlohmann::json apps = nlohmann::json::array();
    for (const DcbApp& a : s.apps) {
        nlohmann::json sel = a.selector >= 1 && a.selector <= 5
                                 ? nlohmann::json(kSelectors[static_cast<size_t>(a.selector - 1)])
                                 : nlohmann::json(a.selector);
        apps.push_back({{"selector", sel}, {"protocol", a.protocol}, {"priority", a.priority}});
    }
    nlohmann::json j = {{"available", true},    {"standard", s.standard}, {"pfc_enabled", pfc},
                        {"pfc_cap", s.pfc_cap}, {"apps", apps},           {"trust", s.trust()}};
    if (auto p = s.roce_priority()) j["roce_priority"] = *p;
    return j;
}

Result<DcbSettings> dcb_from_json(const nlohmann::json& j, const std::string& netdev,
                                  const std::string& origin) {
    auto bad = [&](const std::string& what) {
        return make_error(fmt::format("{}: {}: {}", origin, netdev, what));
    };
    if (!j.is_object()) return bad("expected an object");
    DcbSettings s;
    s.netdev = netdev;
    auto avail = j.find("available");
    if (avail == j.end() || !avail->is_boolean())
        return bad("\"available\": expected true or false");
    s.available = avail->get<bool>();
    if (!s.available) {
        auto why = j.find("unavailable");
        if (why != j.end() && why->is_string()) s.unavailable = why->get<std::string>();
        return s;
    }
    s.standard = j.value("standard", "ieee");
    if (s.standard != "ieee" && s.standard != "cee") return bad("\"standard\": ieee or cee");
    auto pfc = j.find("pfc_enabled");
    if (pfc == j.end() || !pfc->is_array()) return bad("\"pfc_enabled\": expected [priorities]");
    for (const auto& p : *pfc) {
        if (!p.is_number_integer() || p.get<int>() < 0 || p.get<int>() > 7)
            return bad("\"pfc_enabled\": priorities are 0..7");
        s.pfc_enabled |= static_cast<uint8_t>(1U << p.get<int>());
    }
    if (j.contains("pfc_cap")) {
        if (!j["pfc_cap"].is_number_integer()) return bad("\"pfc_cap\": expected a number");
        s.pfc_cap = j["pfc_cap"].get<int>();
    }
    if (auto apps = j.find("apps"); apps != j.end()) {
        if (!apps->is_array() || apps->size() > kMaxDcbApps)
            return bad(fmt::format("\"apps\": expected at most {} entries", kMaxDcbApps));
        for (const auto& a : *apps) {
            if (!a.is_object() || !a.contains("selector") || !a.contains("protocol") ||
                !a.contains("priority"))
                return bad("\"apps\": each entry has selector, protocol and priority");
            DcbApp app;
            const auto& sel = a["selector"];
            if (sel.is_string()) {
                auto name = sel.get<std::string>();
                for (size_t i = 0; i < kSelectors.size(); ++i) {
                    if (name == kSelectors[i]) app.selector = static_cast<int>(i + 1);
                }
                if (app.selector == 0)
                    return bad(
                        fmt::format("selector \"{}\": ethertype, tcp, udp, any or dscp", name));
            } else if (sel.is_number_integer()) {
                app.selector = sel.get<int>();
            } else {
                return bad("\"selector\": a name or a number");
            }
            if (!a["protocol"].is_number_integer() || !a["priority"].is_number_integer())
                return bad("\"apps\": protocol and priority are numbers");
            app.protocol = a["protocol"].get<int>();
            app.priority = a["priority"].get<int>();
            if (app.priority < 0 || app.priority > 7) return bad("\"apps\": priority is 0..7");
            s.apps.push_back(app);
        }
    }
    return s;
}

Result<DcbSettings> FixtureDcbSource::read(const std::string& netdev) {
    std::error_code ec;
    DcbSettings none;
    none.netdev = netdev;
    none.unavailable = "no settings saved for it";
    if (!std::filesystem::exists(path_, ec)) return none;
    auto text = read_text_file(path_, kMaxDcbFile);
    if (!text) return text.error();
    nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        return make_error(fmt::format("{}: not a JSON object of netdevs", path_));
    auto it = doc.find(netdev);
    if (it == doc.end()) return none;
    return dcb_from_json(*it, netdev, path_);
}

}  // namespace fabscope
