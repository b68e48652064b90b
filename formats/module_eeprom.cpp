#include "formats/module_eeprom.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "util/exit_status.h"
#include "util/printable.h"

namespace fabscope {
namespace {

// The pages' bytes by the spec's address: 0-127 the lower page, 128-255 the
// upper half of `page` (absent pages read as nothing).
class PageView {
  public:
    PageView(const ModulePages& p, uint8_t page) : p_(p), page_(page) {}
    bool present() const { return page_ == 0 || p_.upper.count(page_) != 0; }
    uint8_t u8(size_t at) const {
        if (at < kModuleHalfPage) return p_.lower[at];
        auto it = p_.upper.find(page_);
        return it == p_.upper.end() ? 0 : it->second[at - kModuleHalfPage];
    }
    uint16_t u16(size_t at) const { return static_cast<uint16_t>((u8(at) << 8U) | u8(at + 1)); }
    int16_t s16(size_t at) const { return static_cast<int16_t>(u16(at)); }
    std::string text(size_t from, size_t to) const {  // [from, to], space padded ASCII
        std::string s;
        for (size_t i = from; i <= to; ++i) s += static_cast<char>(u8(i));
        s = printable(s);
        while (!s.empty() && (s.back() == ' ' || s.back() == '?')) s.pop_back();
        return s;
    }

  private:
    const ModulePages& p_;
    uint8_t page_;
};

// Units shared by both specs: temperature 1/256 degC (signed), supply 100 uV,
// optical power 0.1 uW, bias 2 uA.
double celsius(int16_t raw) {
    return raw / 256.0;
}
double volts(uint16_t raw) {
    return raw * 1e-4;
}
double milliwatts(uint16_t raw) {
    return raw * 1e-4;
}
double milliamps(uint16_t raw, int multiplier = 1) {
    return raw * 2e-3 * multiplier;
}

/// Four thresholds at `at`: high alarm, low alarm, high warning, low warning.
template <class Conv>
ModuleLimits limits(size_t at, Conv conv) {
    return ModuleLimits{conv(at), conv(at + 2), conv(at + 4), conv(at + 6)};
}

std::string oui(const PageView& v, size_t at) {
    return fmt::format("{:02x}:{:02x}:{:02x}", v.u8(at), v.u8(at + 1), v.u8(at + 2));
}

/// Where page 00h keeps the module's identity (each field's first byte):
/// vendor name (16), OUI (3), part number (16), revision (2), serial (16),
/// date code (8).
struct IdentityAt {
    size_t vendor, oui, part_number, revision, serial, date_code;
};

void read_identity(const PageView& v, const IdentityAt& at, ModuleInfo& m) {
    m.vendor = v.text(at.vendor, at.vendor + 15);
    m.oui = oui(v, at.oui);
    m.part_number = v.text(at.part_number, at.part_number + 15);
    m.revision = v.text(at.revision, at.revision + 1);
    m.serial = v.text(at.serial, at.serial + 15);
    m.date_code = v.text(at.date_code, at.date_code + 7);
}

/// The four flags of a quantity, in the order both specs keep them.
constexpr std::array<const char*, 4> kFlagNames = {"high alarm", "low alarm", "high warning",
                                                   "low warning"};

/// The four flags of one quantity, bits as `bits` lists them (HA, LA, HW, LW).
void flags_of(uint8_t byte, std::array<unsigned, 4> bits, const std::string& what,
              std::vector<std::string>& out) {
    for (size_t i = 0; i < kFlagNames.size(); ++i)
        if ((byte >> bits[i]) & 1U) out.push_back(fmt::format("{} {}", what, kFlagNames[i]));
}

// SFF-8636: lower page monitors and flags, upper page 00h identity, page 03h thresholds.
void decode_sff8636(const ModulePages& p, ModuleInfo& m) {
    const PageView lo(p, 0);
    const PageView p3(p, 3);
    const uint8_t diag = lo.u8(220);
    const int16_t temp = lo.s16(22);
    const bool dom = (diag & 0x30U) != 0 || (temp != 0 && static_cast<uint16_t>(temp) != 0xFFFF);
    if (dom) {
        m.temperature_c = celsius(temp);
        m.supply_v = volts(lo.u16(26));
        for (int ch = 0; ch < 4; ++ch) {
            ModuleLane l{
                ch + 1, {}, milliwatts(lo.u16(34 + 2 * ch)), milliamps(lo.u16(42 + 2 * ch))};
            if ((diag & 0x04U) != 0) l.tx_power_mw = milliwatts(lo.u16(50 + 2 * ch));
            m.lanes.push_back(l);
        }
    }
    read_identity(lo, {148, 165, 168, 184, 196, 212}, m);
    const unsigned tech = lo.u8(147) >> 4U;  // transmitter technology; 10..15 copper
    m.media = tech >= 10 ? "copper" : "optical";
    // The first length it states: copper (146, m), single mode (142, km),
    // OM3 (143, 2 m), OM2 (144, m), OM1 (145, m), active cable or OM4 (146, m).
    const std::pair<size_t, double> lengths[] = {
        {tech >= 10 ? 146 : 142, tech >= 10 ? 1.0 : 1000.0},
        {143, 2.0},
        {144, 1.0},
        {145, 1.0},
        {146, 1.0}};
    for (const auto& [at, unit] : lengths) {
        if (lo.u8(at) == 0) continue;
        m.length_m = lo.u8(at) * unit;
        break;
    }
    if (!p3.present()) return;  // flat memory: no thresholds, no meaningful flags
    m.temperature_limits = limits(128, [&](size_t a) { return celsius(p3.s16(a)); });
    m.supply_limits = limits(144, [&](size_t a) { return volts(p3.u16(a)); });
    m.rx_power_limits = limits(176, [&](size_t a) { return milliwatts(p3.u16(a)); });
    m.tx_bias_limits = limits(184, [&](size_t a) { return milliamps(p3.u16(a)); });
    m.tx_power_limits = limits(192, [&](size_t a) { return milliwatts(p3.u16(a)); });
    flags_of(lo.u8(6), {7, 6, 5, 4}, "temperature", m.flags);
    flags_of(lo.u8(7), {7, 6, 5, 4}, "supply voltage", m.flags);
    const std::pair<size_t, const char*> lane_flags[] = {
        {9, "rx power"}, {11, "tx bias"}, {13, "tx power"}};
    for (const auto& [at, what] : lane_flags) {
        for (int ch = 0; ch < 4; ++ch) {
            const uint8_t byte = lo.u8(at + static_cast<size_t>(ch / 2));
            const unsigned top = ch % 2 == 0 ? 7 : 3;  // odd channels in the high nibble
            flags_of(byte, {top, top - 1, top - 2, top - 3},
                     fmt::format("lane {} {}", ch + 1, what), m.flags);
        }
    }
}

std::string cmis_state(uint8_t byte3) {
    switch ((byte3 & 0x0EU) >> 1U) {
        case 1: return "low power";
        case 2: return "powering up";
        case 3: return "ready";
        case 4: return "powering down";
        case 5: return "fault";
        default: return "reserved";
    }
}

// CMIS page 11h: per-lane monitors where page 01h advertises them, and flags.
void cmis_lanes(const ModulePages& p, ModuleInfo& m) {
    const PageView p1(p, 1);
    const PageView p11(p, 0x11);
    if (!p1.present() || !p11.present()) return;
    const uint8_t adv = p1.u8(160);
    const int bias_mul = 1 << ((adv & 0x18U) >> 3U);  // x1, x2, x4 (spec: multiply)
    for (int i = 0; i < 8; ++i) {
        ModuleLane l{i + 1, {}, {}, {}};
        const size_t off = 2 * static_cast<size_t>(i);
        if (adv & 0x02U) l.tx_power_mw = milliwatts(p11.u16(154 + off));
        if (adv & 0x01U) l.tx_bias_ma = milliamps(p11.u16(170 + off), bias_mul);
        if (adv & 0x04U) l.rx_power_mw = milliwatts(p11.u16(186 + off));
        // Lanes the module does not use read zero in every monitor.
        const bool used = l.tx_power_mw.value_or(0) > 0 || l.tx_bias_ma.value_or(0) > 0 ||
                          l.rx_power_mw.value_or(0) > 0;
        if (used) m.lanes.push_back(l);
    }
    const std::pair<size_t, const char*> groups[] = {
        {139, "tx power"}, {143, "tx bias"}, {149, "rx power"}};
    for (const auto& [at, what] : groups) {
        for (size_t k = 0; k < kFlagNames.size(); ++k) {
            const uint8_t byte = p11.u8(at + k);
            for (int i = 0; i < 8; ++i)
                if ((byte >> i) & 1U)
                    m.flags.push_back(fmt::format("lane {} {} {}", i + 1, what, kFlagNames[k]));
        }
    }
    if (const PageView p2(p, 2); p2.present()) {
        m.tx_power_limits = limits(176, [&](size_t a) { return milliwatts(p2.u16(a)); });
        m.tx_bias_limits = limits(184, [&](size_t a) { return milliamps(p2.u16(a), bias_mul); });
        m.rx_power_limits = limits(192, [&](size_t a) { return milliwatts(p2.u16(a)); });
    }
}

void decode_cmis(const ModulePages& p, ModuleInfo& m) {
    const PageView lo(p, 0);
    m.state = cmis_state(lo.u8(3));
    m.temperature_c = celsius(lo.s16(14));
    m.supply_v = volts(lo.u16(16));
    read_identity(lo, {129, 145, 148, 164, 166, 182}, m);
    const uint8_t len = lo.u8(202);
    static const double kMultiplier[] = {0.1, 1, 10, 100};
    if ((len & 0x3FU) != 0) m.length_m = (len & 0x3FU) * kMultiplier[len >> 6U];
    const uint8_t type = lo.u8(85);
    m.media = type == 3 || type == 4 || lo.u8(212) >= 0x0A ? "copper"
              : type == 1 || type == 2                     ? "optical"
                                                           : "";
    // Module flags, byte 9: temperature in bits 0-3, supply in 4-7 (HA, LA, HW, LW).
    flags_of(lo.u8(9), {0, 1, 2, 3}, "temperature", m.flags);
    flags_of(lo.u8(9), {4, 5, 6, 7}, "supply voltage", m.flags);
    if (const PageView p2(p, 2); p2.present()) {
        m.temperature_limits = limits(128, [&](size_t a) { return celsius(p2.s16(a)); });
        m.supply_limits = limits(136, [&](size_t a) { return volts(p2.u16(a)); });
    }
    cmis_lanes(p, m);
}

/// `v` against its limits: an alarm is an error, a warning a warning.
void against(double v, const std::optional<ModuleLimits>& lim, const std::string& what,
             const std::function<std::string(double)>& show, std::vector<ModuleIssue>& out) {
    if (!lim) return;
    const bool alarm = v > lim->high_alarm || v < lim->low_alarm;
    const double high_at = alarm ? lim->high_alarm : lim->high_warn;
    const double low_at = alarm ? lim->low_alarm : lim->low_warn;
    if (v <= high_at && v >= low_at) return;
    const bool high = v > high_at;
    out.push_back({alarm, fmt::format("{} {}, {} its {} {} {}", what, show(v),
                                      high ? "above" : "below", high ? "high" : "low",
                                      alarm ? "alarm" : "warning", show(high ? high_at : low_at))});
}

}  // namespace

ModuleFamily module_family(uint8_t identifier) {
    switch (identifier) {
        case 0x0C:
        case 0x0D:
        case 0x11: return ModuleFamily::Sff8636;
        case 0x18:
        case 0x19:
        case 0x1B:
        case 0x1E:
        case 0x1F:
        case 0x20: return ModuleFamily::Cmis;
        default: return ModuleFamily::Other;
    }
}

std::string module_type_name(uint8_t identifier) {
    switch (identifier) {
        case 0x03: return "SFP";
        case 0x0C: return "QSFP";
        case 0x0D: return "QSFP+";
        case 0x11: return "QSFP28";
        case 0x18: return "QSFP-DD";
        case 0x19: return "OSFP";
        case 0x1B: return "DSFP";
        case 0x1E: return "QSFP+ (CMIS)";
        case 0x1F: return "SFP-DD";
        case 0x20: return "SFP+ (CMIS)";
        default: return fmt::format("identifier {:#04x}", identifier);
    }
}

std::vector<uint8_t> module_pages_to_read(const ModuleHalfPage& lower) {
    switch (module_family(lower[0])) {
        case ModuleFamily::Sff8636:
            return (lower[2] & 0x04U) != 0 ? std::vector<uint8_t>{} : std::vector<uint8_t>{3};
        case ModuleFamily::Cmis:
            return (lower[2] & 0x80U) != 0 ? std::vector<uint8_t>{}
                                           : std::vector<uint8_t>{1, 2, 0x11};
        case ModuleFamily::Other: break;
    }
    return {};
}

Result<ModuleInfo> decode_module(const ModulePages& pages) {
    ModuleInfo m;
    m.identifier = pages.lower[0];
    m.family = module_family(m.identifier);
    m.type = module_type_name(m.identifier);
    if (m.family == ModuleFamily::Other) {
        return make_error(fmt::format("a {} module: fabscope decodes SFF-8636 (QSFP) and CMIS "
                                      "(QSFP-DD, OSFP) memory maps",
                                      m.type),
                          kExitUsage);
    }
    if (!pages.upper.count(0)) return make_error("the module's page 00h was not read", kExitUsage);
    if (m.family == ModuleFamily::Sff8636)
        decode_sff8636(pages, m);
    else
        decode_cmis(pages, m);
    return m;
}

std::string format_dbm(double mw) {
    if (mw < 1e-4) return "-inf dBm";
    return fmt::format("{:.1f} dBm", 10 * std::log10(mw));
}

std::vector<ModuleIssue> module_issues(const ModuleInfo& m) {
    std::vector<ModuleIssue> out;
    if (m.state == "fault") out.push_back({true, "the module is in its fault state"});
    auto deg = [](double v) { return fmt::format("{:.1f} degC", v); };
    auto volt = [](double v) { return fmt::format("{:.2f} V", v); };
    auto ma = [](double v) { return fmt::format("{:.1f} mA", v); };
    if (m.temperature_c) against(*m.temperature_c, m.temperature_limits, "temperature", deg, out);
    if (m.supply_v) against(*m.supply_v, m.supply_limits, "supply", volt, out);
    for (const ModuleLane& l : m.lanes) {
        const std::string lane = fmt::format("lane {}", l.lane);
        if (l.rx_power_mw)
            against(*l.rx_power_mw, m.rx_power_limits, lane + " receives", format_dbm, out);
        if (l.tx_power_mw)
            against(*l.tx_power_mw, m.tx_power_limits, lane + " transmits", format_dbm, out);
        if (l.tx_bias_ma) against(*l.tx_bias_ma, m.tx_bias_limits, lane + " bias", ma, out);
    }
    // Latched alarms the readings above may no longer show: it happened since the last read.
    for (const std::string& f : m.flags) {
        if (f.find("alarm") != std::string::npos)
            out.push_back({false, fmt::format("the module latched a {} since its flags "
                                              "were last read",
                                              f)});
    }
    return out;
}

}  // namespace fabscope
