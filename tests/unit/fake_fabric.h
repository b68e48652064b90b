#pragma once
// A fake fabric behind the MadTransport seam, for testing the MAD engine
// and the sweep without a simulator: it answers SMPs by walking directed
// routes over an in-memory Fabric, LID-routed SMPs and PMA Gets by LID, and
// can be told to misbehave per node: silent, dropping, late, duplicating,
// answering garbage. Time is a ManualClock that moves only when the engine
// waits, so timeouts are tested exactly and instantly.

#include <deque>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "discover/mad_transport.h"
#include "model/fabric.h"

namespace fabscope::testing {

using FakeClock = ManualClock;

struct NodeBehaviour {
    bool silent = false;   ///< never answers, and DR SMPs through it are lost
    double drop_rate = 0;  ///< share of MADs answered with transport status 110 at once
    std::chrono::milliseconds delay{1};  ///< when the answer arrives
    bool duplicate = false;              ///< every answer arrives twice
    bool garbage = false;                ///< answers with random bytes
    bool wrong_attribute = false;        ///< answers with the right TID but another attribute
    uint16_t status = 0;  ///< MAD status in every answer (0x0001 busy, 0x001C bad attribute)
};

class FakeFabric final : public MadTransport {
  public:
    FakeFabric(const Fabric& fabric, Guid local, uint8_t local_port, FakeClock& clock,
               uint32_t seed = 1);

    NodeBehaviour& behaviour(Guid node) { return behaviour_[node]; }
    /// Like ibsim's `Error "node"[port] rate`: that share of the MADs whose
    /// way (there or back) crosses the port is answered with 110 at once.
    void set_port_drop_rate(PortRef port, double rate) { port_drop_[port] = rate; }
    /// Called after every send with the number sent so far (e.g. to press Ctrl-C).
    std::function<void(size_t)> on_send;
    /// PortVLXmitWaitCounters of the ports that answer them; every other
    /// port refuses the attribute (status 0x000C), as many PMAs do.
    std::map<PortRef, VlXmitWait> vl_xmit_wait;
    /// Nodes that never answer PortVLXmitWaitCounters (and answer all else).
    std::set<Guid> vl_xmit_wait_ignored;
    /// Nodes whose PMA refuses PortRcvErrorDetails and PortXmitDiscardDetails
    /// (status 0x000C); the others answer them from the ports' counters.
    std::set<Guid> details_refused;
    /// PortSamplesControl.Tick of the nodes whose PMA answers it; others
    /// refuse it (status 0x000C), or, in pma_returned, return it.
    std::map<Guid, uint8_t> samples_tick;
    /// Nodes whose PMA does not answer what it does not implement: the request
    /// comes back at once with transport status 110 (as ibsim's do), not
    /// refused with a MAD status.
    std::set<Guid> pma_returned;
    /// PortExtendedSpeedsCounters (0x1F) data of the ports that answer it
    /// (PortSelect is filled in); others refuse it or, in pma_returned, return it.
    std::map<PortRef, std::array<uint8_t, 192>> ext_speeds;
    /// The PMA ClassPortInfo CapabilityMask of nodes that answer it (others refuse it).
    std::map<Guid, uint16_t> pma_class_cap;
    /// Nodes whose ports answer PortInfoExtended (PortInfo says so through
    /// CapabilityMask2), with FEC modes supported and this FECModeActive.
    std::map<Guid, uint16_t> fec_mode_active;
    /// Every PMA attribute asked of the fabric, in order (to count MADs by kind).
    mutable std::vector<uint16_t> pma_asked;
    /// Directed routes into a port that is not up: true = answered with 110
    /// at once (ibsim), false = lost silently (a real switch).
    bool down_port_answers = true;

    Status send(const mad::Address& to, const MadBytes& mad,
                std::chrono::milliseconds timeout) override;
    std::optional<ReceivedMad> receive(std::chrono::milliseconds timeout) override;

    /// Answers not yet received (still "on the wire").
    size_t undelivered() const { return queue_.size(); }
    /// SMP attributes asked, in order.
    mutable std::vector<uint16_t> smp_asked;
    /// Requests that reached each node (for "a dead node costs one timeout").
    std::map<Guid, int> requests_to;
    size_t max_outstanding = 0;
    int non_get_methods = 0;  ///< anything but a Get: fabscope must never send one

  private:
    struct Delivery {
        Clock::time_point at;
        ReceivedMad mad;
    };
    /// Follows a directed route hop by hop, or a LID route through the
    /// switches' forwarding tables (straight to the LID's owner in a fabric
    /// without tables); `crossed` gets both ends of every link on the way.
    const Node* walk(const mad::Address& to, uint8_t* arrival, bool* lost, bool* silent_on_way,
                     std::vector<PortRef>* crossed) const;
    const Node* walk_lid(Lid lid, uint8_t* arrival, bool* lost, bool* silent_on_way,
                         std::vector<PortRef>* crossed) const;
    std::optional<MadBytes> answer(const Node& n, uint8_t arrival, const MadBytes& req) const;
    void deliver(std::chrono::milliseconds after, ReceivedMad m);

    const Fabric& fabric_;
    Guid local_;
    uint8_t local_port_;
    FakeClock& clock_;
    std::mt19937 rng_;
    std::map<Guid, NodeBehaviour> behaviour_;
    std::map<PortRef, double> port_drop_;
    size_t sent_ = 0;
    std::vector<Delivery> queue_;
    size_t outstanding_ = 0;
};

/// Fills every switch's forwarding table with shortest-path routes (the
/// lowest-numbered port among equals), as a test stand-in for an SM.
void program_min_hop_routes(std::vector<Node>& nodes);

}  // namespace fabscope::testing
