#pragma once
// A pluggable module's identity and health from its memory map (the EEPROM
// at I2C address 0x50), decoded per SFF-8636 (QSFP, QSFP+, QSFP28) and CMIS
// 4.0/5.x (QSFP-DD, OSFP, QSFP+ and SFP-DD under CMIS). Pure: bytes in.
// Offsets are numbered as the specs number them (lower page 0-127, upper
// pages 128-255) and were checked against ethtool's qsfp.h and cmis.h; where
// ethtool departs from the spec (CMIS Tx bias multiplier, per-lane flags) the
// spec is followed. SFP (SFF-8472) is named, not decoded.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope {

inline constexpr size_t kModuleHalfPage = 128;
using ModuleHalfPage = std::array<uint8_t, kModuleHalfPage>;

/// What was read of a module: the lower page, and the upper half of each
/// page read (page 00h's identity, SFF-8636's 03h, CMIS's 01h, 02h, 11h),
/// bank 0. Byte N of an upper page is `upper.at(page)[N - 128]`.
struct ModulePages {
    ModuleHalfPage lower{};
    std::map<uint8_t, ModuleHalfPage> upper;
};

enum class ModuleFamily : uint8_t { Sff8636, Cmis, Other };

/// The family of management interface byte 0 (the SFF-8024 identifier) means.
ModuleFamily module_family(uint8_t identifier);
/// "QSFP28", "QSFP-DD", "OSFP", "SFP", or "identifier 0x.." for others.
std::string module_type_name(uint8_t identifier);
/// The upper pages to read after page 00h, from the lower page: none for
/// flat memory; SFF-8636: 03h (thresholds); CMIS: 01h, 02h and 11h.
std::vector<uint8_t> module_pages_to_read(const ModuleHalfPage& lower);

/// A module's own limits for one quantity, in the quantity's unit.
struct ModuleLimits {
    double high_alarm = 0;
    double low_alarm = 0;
    double high_warn = 0;
    double low_warn = 0;
};

struct ModuleLane {
    int lane = 1;
    std::optional<double> tx_power_mw;
    std::optional<double> rx_power_mw;
    std::optional<double> tx_bias_ma;
};

struct ModuleInfo {
    ModuleFamily family = ModuleFamily::Other;
    uint8_t identifier = 0;
    std::string type;  ///< module_type_name()
    std::string vendor;
    std::string oui;  ///< "00:02:c9"
    std::string part_number;
    std::string revision;
    std::string serial;
    std::string date_code;  ///< YYMMDD and lot, as the module writes it
    std::string media;      ///< "copper", "optical", "" when it does not say
    std::optional<double> length_m;
    std::string state;  ///< CMIS module state ("ready", "fault", ...); "" for SFF-8636
    std::optional<double> temperature_c;
    std::optional<double> supply_v;
    std::optional<ModuleLimits> temperature_limits;
    std::optional<ModuleLimits> supply_limits;
    std::optional<ModuleLimits> tx_power_limits;  ///< mW
    std::optional<ModuleLimits> rx_power_limits;  ///< mW
    std::optional<ModuleLimits> tx_bias_limits;   ///< mA
    std::vector<ModuleLane> lanes;
    /// Latched alarm and warning flags the module raised since they were
    /// last read: "temperature high alarm", "lane 2 rx power low warning".
    std::vector<std::string> flags;
};

/// Decodes what was read. An identifier of neither family, or a family's
/// page 00h missing, is an error naming it.
Result<ModuleInfo> decode_module(const ModulePages& pages);

/// What is wrong with a module by its own limits: temperature, supply and
/// each lane's power and bias beyond an alarm (error) or a warning
/// (warning) threshold, a CMIS module in its fault state, latched alarms.
struct ModuleIssue {
    bool alarm = false;  ///< beyond an alarm threshold, or a fault: an error; else a warning
    std::string what;    ///< "lane 2 receives -14.1 dBm, below its low alarm -12.0 dBm"
};
std::vector<ModuleIssue> module_issues(const ModuleInfo& m);

/// Optical power in dBm ("-inf" below 0.0001 mW).
std::string format_dbm(double mw);

}  // namespace fabscope
