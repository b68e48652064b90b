#pragma once
// The DCB settings of one netdev through dcbnl (rtnetlink RTM_GETDCB): which
// priorities have PFC on (DCB_CMD_IEEE_GET's ieee_pfc.pfc_en, or the CEE
// DCB_CMD_PFC_GCFG where the driver has no IEEE support), and the app table,
// from which the trust mode (DSCP entries: the NIC classifies by DSCP) and the
// RoCE priority (the entry for UDP port 4791, or ethertype 0x8915 for RoCE v1)
// follow. A driver without DCB (veth, most virtual devices) is a result, not
// an error: "DCB not available on <netdev>". A fixture source reads the same
// settings from a host's dcb.json, keyed by netdev.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope {

/// One app table entry (struct dcb_app): traffic matching `selector` and
/// `protocol` goes on `priority`.
struct DcbApp {
    int selector = 0;  ///< IEEE_8021QAZ_APP_SEL_*: 1 ethertype, 2 TCP, 3 UDP, 4 any, 5 DSCP
    int protocol = 0;  ///< ethertype, port or DSCP value
    int priority = 0;
    bool operator==(const DcbApp&) const = default;
};

struct DcbSettings {
    std::string netdev;
    bool available = false;
    std::string unavailable;  ///< why not, when !available: "the driver has no DCB support"
    std::string standard;     ///< "ieee" or "cee": which dcbnl command answered
    uint8_t pfc_enabled = 0;  ///< bit N: PFC on for priority N
    int pfc_cap = 0;          ///< traffic classes that may have PFC on (0: not reported)
    std::vector<DcbApp> apps;

    bool pfc_on(int priority) const { return (pfc_enabled >> priority) & 1U; }
    /// "dscp" when the app table maps DSCP values, else "pcp".
    std::string trust() const;
    /// The priority RoCE traffic is given: the app entry for UDP 4791 (RoCEv2)
    /// or ethertype 0x8915 (RoCE v1); with DSCP trust and no such entry, none.
    std::optional<int> roce_priority() const;
    /// "DCB not available on eth0 (the driver has no DCB support)".
    std::string unavailable_message() const;
};

/// The most app table entries read (64 DSCP values, a few per protocol).
inline constexpr size_t kMaxDcbApps = 1024;

class DcbSource {
  public:
    virtual ~DcbSource() = default;
    /// The settings, or !available with the reason; an error only when the
    /// question could not be asked (no such netdev, socket, bad file).
    virtual Result<DcbSettings> read(const std::string& netdev) = 0;
};

/// rtnetlink on a NETLINK_ROUTE socket opened in the constructor (in the
/// network namespace of the constructing thread); every answer has a deadline.
class NetlinkDcbSource final : public DcbSource {
  public:
    NetlinkDcbSource();
    ~NetlinkDcbSource() override;
    NetlinkDcbSource(const NetlinkDcbSource&) = delete;
    NetlinkDcbSource& operator=(const NetlinkDcbSource&) = delete;
    Result<DcbSettings> read(const std::string& netdev) override;

  private:
    int fd_ = -1;
    int open_errno_ = 0;
    uint32_t seq_ = 0;
};

/// A host's dcb.json: {"eth2": {DcbSettings as JSON}, ...}. A netdev absent
/// from the file (or no file) reads as not available.
class FixtureDcbSource final : public DcbSource {
  public:
    explicit FixtureDcbSource(std::string path) : path_(std::move(path)) {}
    Result<DcbSettings> read(const std::string& netdev) override;

  private:
    std::string path_;
};

nlohmann::json dcb_to_json(const DcbSettings& s);
/// Errors name `origin` and what is wrong.
Result<DcbSettings> dcb_from_json(const nlohmann::json& j, const std::string& netdev,
                                  const std::string& origin);

}  // namespace fabscope
