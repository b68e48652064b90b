#pragma once
// What the passes of a sweep share (topology_pass, routes_pass,
// counters_pass, then sweep_assembly): one MAD engine, the nodes found with
// their raw replies, the links seen, and what could not be read. One
// explicit context through the run, each pass a function of it.

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "discover/node_assembly.h"
#include "discover/sweep.h"

namespace fabscope {

/// A PMA's model: nodes of one vendor, device and revision run the same PMA
/// (one tick, one set of optional attributes).
using PmaModel = std::tuple<uint32_t, uint16_t, uint32_t>;

/// A node as the sweep found it: identity and how to reach it, and the
/// replies read so far.
struct SweptNode {
    SmpReplies replies;
    mad::Address path;
    uint8_t arrival = 0;  ///< the port it was reached through (0 for the local node)
    bool local = false;
    std::optional<SwitchInfo> switch_info;
    std::vector<uint8_t> lft;                        ///< empty until read
    std::map<uint8_t, PortCounters> counters;        ///< complete readings only
    std::map<uint8_t, SmInfo> sm;                    ///< SMInfo answers, by port
    std::map<uint8_t, std::vector<uint16_t>> pkeys;  ///< P_Keys in use, by port
    std::optional<uint8_t> pma_tick;                 ///< PortSamplesControl.Tick, if answered

    Guid guid() const { return replies.info.node_guid; }
    bool is_switch() const { return replies.info.type == NodeType::Switch; }
    /// Port `port`'s LID (a switch's is port 0's), 0 if unknown.
    Lid lid(uint8_t port) const;
    bool port_up(uint8_t port) const;
    /// Whether an SM runs on one of its ports (PortInfo IsSM; a switch's on port 0).
    bool runs_sm() const;
    PmaModel pma_model() const;
    /// The CapabilityMask (and CapabilityMask2) that speaks for port `port`:
    /// its own, or port 0's for a switch's external port. 0 if unread.
    uint32_t capability_mask(uint8_t port) const;
    uint32_t capability_mask2(uint8_t port) const;
};

struct PortRefHash {
    size_t operator()(const PortRef& r) const noexcept {
        return static_cast<size_t>((r.node * 0x9E3779B97F4A7C15ULL) ^ r.port);
    }
};

class SweepContext {
  public:
    SweepContext(MadTransport& transport, const Clock& clock, const LocalPort& from,
                 const SweepOptions& opts)
        : engine(transport, clock, opts.engine), local(from), options(opts) {}

    MadEngine engine;
    LocalPort local;
    SweepOptions options;
    std::unordered_map<Guid, SweptNode> nodes;
    std::vector<Guid> order;  ///< in the order found
    std::unordered_map<PortRef, PortRef, PortRefHash> peers;
    std::vector<Finding> problems;
    std::string local_error;  ///< why the local node did not answer

    bool stopped() const {
        return options.engine.stop != nullptr && options.engine.stop->stop_requested();
    }
    std::string where(const SweptNode& n) const;
    void problem(std::string kind, Severity sev, std::string summary, std::vector<PortRef> at,
                 nlohmann::json evidence);
    /// A query that failed. Gathered per node, attribute and reason, so one
    /// lossy route makes one finding ("counters of ports 1-7"), not seven.
    /// Cancelled queries (the run was stopped) are no finding.
    void failed(const SweptNode& n, uint8_t port, std::string what, const MadResult& res);
    /// Turns the gathered failures into findings.
    void report_failures();

  private:
    std::map<std::tuple<Guid, std::string, std::string>, std::vector<uint8_t>> failures_;
};

}  // namespace fabscope
