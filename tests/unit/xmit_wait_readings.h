#pragma once
// Two PMA readings of every linked port of a fabric, 1 s apart, with no
// PortXmitWait rise unless a test sets one: the input of the congestion
// detectors' tests and of the report's congestion tests.

#include <cstdint>
#include <string>

#include "model/counters.h"
#include "model/fabric.h"

namespace fabscope::testing {

// 4X HDR: one tick is 0.16 ns (a lane's byte time); over 1 s, 10% is 6.25e8 ticks.
constexpr uint64_t kTenPercent = 625000000;

struct XmitWaitReadings {
    Fabric f;
    CounterReadings before;
    CounterReadings after;

    explicit XmitWaitReadings(Fabric fabric) : f(std::move(fabric)) {
        for (const Node& n : f.nodes()) {
            for (const Port& p : n.ports) {
                if (p.num == 0 || !p.peer) continue;
                PortCounters pc;
                pc.set(Counter::PortXmitWait, 1000);
                pc.read_at_ms = 5000;
                before[PortRef{n.guid, p.num}] = pc;
                pc.read_at_ms = 6000;
                after[PortRef{n.guid, p.num}] = pc;
            }
        }
    }
    PortRef ref(const std::string& node, uint8_t port) const {
        return PortRef{f.find(node)->guid, port};
    }
    /// `node`[`port`] waited `ticks` between the readings.
    void wait(const std::string& node, uint8_t port, uint64_t ticks) {
        after[ref(node, port)].set(Counter::PortXmitWait, 1000 + ticks);
    }
};

}  // namespace fabscope::testing
