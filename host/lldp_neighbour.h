#pragma once
// The LLDP neighbours of a host's netdevs: what lldpd received on each
// interface (liblldpctl hands it over, host/lldp_lldpctl.h), converted into
// records fabscope uses: the switch's name, chassis ID and port, the port
// number a plan names, and the DCBX PFC settings when the switch sent them.
// The conversion is pure: it takes what the library gave as plain values.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope::host {

/// An organisationally specific TLV as lldpd kept it (its "custom" TLVs).
struct LldpOrgTlv {
    uint32_t oui = 0;  ///< 0x0080c2 = IEEE 802.1
    int subtype = 0;
    std::vector<uint8_t> info;  ///< after OUI and subtype
};

/// What lldpd knows about one neighbour, field by field as liblldpctl gives it.
struct LldpRaw {
    std::string interface;           ///< the local netdev it was received on
    std::string chassis_id_subtype;  ///< "mac", "local", "ifname", "ip", ...
    std::string chassis_id;          ///< "52:54:00:12:34:56" for a MAC
    std::string system_name;
    std::string system_description;
    std::string port_id_subtype;  ///< "ifname", "mac", "local", "ifalias", ...
    std::string port_id;
    std::string port_description;
    std::vector<LldpOrgTlv> org_tlvs;
};

/// IEEE 802.1Qaz PFC configuration TLV (OUI 00-80-C2, subtype 0x0B).
struct PfcTlv {
    bool willing = false;
    bool mbc = false;     ///< MACsec bypass capability
    int capability = 0;   ///< traffic classes that can run PFC at once (0..15)
    uint8_t enabled = 0;  ///< bit p: PFC on priority p

    /// "3,4" (the priorities with PFC on), "none".
    std::string priorities() const;
};

/// One neighbour as fabscope reports it.
struct LldpNeighbour {
    std::string netdev;
    std::string system_name;
    std::string system_description;
    std::string chassis_id;
    std::string chassis_id_subtype;
    std::string port_id;
    std::string port_id_subtype;
    std::string port_description;
    /// The switch's own name for the port: the port ID when it is an
    /// interface name or locally assigned, else the port description.
    std::string port_name;
    /// The port's number, from the digits that end port_name ("swp12",
    /// "Ethernet12", "pa12" -> 12); nullopt when it ends in none or is over 254.
    std::optional<int> port_number;
    std::optional<PfcTlv> pfc;
    /// The DCBX TLVs received, by name ("PFC", "ETS configuration", "CEE DCBX", ...).
    std::vector<std::string> dcbx;
};

/// Decodes a PFC configuration TLV's information (1 + 1 bytes); nullopt
/// when it is too short.
std::optional<PfcTlv> decode_pfc(std::span<const uint8_t> info);
/// "swp12" -> 12; nullopt without trailing digits, or above 254.
std::optional<int> trailing_port_number(std::string_view name);
LldpNeighbour to_neighbour(const LldpRaw& raw);
std::vector<LldpNeighbour> to_neighbours(const std::vector<LldpRaw>& raw);

}  // namespace fabscope::host
