#include "model/fingerprint.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

namespace fabscope {
namespace {

class Fnv1a {
  public:
    void add(uint64_t v) {
        for (int b = 0; b < 8; ++b) {
            h_ ^= (v >> (8 * b)) & 0xFF;
            h_ *= 1099511628211ULL;
        }
    }
    uint64_t value() const { return h_; }

  private:
    uint64_t h_ = 1469598103934665603ULL;
};

std::vector<Guid> sorted_guids(const Fabric& f) {
    std::vector<Guid> guids;
    guids.reserve(f.nodes().size());
    for (const Node& n : f.nodes()) guids.push_back(n.guid);
    std::sort(guids.begin(), guids.end());
    return guids;
}

}  // namespace

std::string node_set_fingerprint(const Fabric& f) {
    Fnv1a h;
    for (Guid g : sorted_guids(f)) h.add(g);
    return fmt::format("{:012x}", h.value() >> 16);
}

std::string fabric_fingerprint(const Fabric& f) {
    const std::vector<Guid> guids = sorted_guids(f);
    // Each link with its lower end first, then its rate (0 when not read).
    using Row = std::array<uint64_t, 6>;
    std::vector<Row> links;
    links.reserve(f.links().size());
    for (const Link& l : f.links()) {
        PortRef a = l.a;
        PortRef b = l.b;
        if (std::tie(b.node, b.port) < std::tie(a.node, a.port)) std::swap(a, b);
        const Port* p = f.port(a);
        uint64_t width = p && p->width_active ? static_cast<uint64_t>(*p->width_active) : 0;
        uint64_t speed = p && p->speed_active ? static_cast<uint64_t>(*p->speed_active) : 0;
        links.push_back({a.node, a.port, b.node, b.port, width, speed});
    }
    std::sort(links.begin(), links.end());
    Fnv1a h;
    for (Guid g : guids) h.add(g);
    for (const Row& r : links) {
        for (uint64_t v : r) h.add(v);
    }
    return fmt::format("{:016x}", h.value());
}

}  // namespace fabscope
