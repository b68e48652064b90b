#pragma once
// What the TUI shows of a fabric, computed once per reading (on the polling
// thread) so that drawing a frame is cheap: every node with its tier, every
// link that is there or should be (from the plan or the first reading), each
// with its health from the findings and its counter rates, and the
// tier-by-tier matrix the fabric view draws.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/finding.h"
#include "model/plan.h"
#include "model/port_rates.h"
#include "model/tiers.h"

namespace fabscope::tui {

/// Worst last: max() of two is the one to show.
enum class Health : uint8_t { Unknown, Ok, Warning, Error };

enum class LinkStatus : uint8_t {
    Up,         ///< cabled and LinkUp
    Miscabled,  ///< up, but the expected shape has other cables at its ports (swapped, miswired)
    Down,       ///< expected here, both nodes answer, the cable is not up (or elsewhere)
    Missing,    ///< expected here, a node at one end is gone
};

struct BoardEnd {
    size_t node = 0;  ///< index into Board::nodes
    uint8_t port = 0;
};

struct BoardLink {
    BoardEnd a;  ///< the lower tier (host, then leaf, then spine)
    BoardEnd b;
    LinkStatus status = LinkStatus::Up;
    std::optional<Width> width;  ///< active, when up
    std::optional<Speed> speed;
    std::string state;  ///< "Active/LinkUp", "Down/Polling", "missing"
    Health health = Health::Ok;
    std::vector<size_t> findings;  ///< indices into Board::findings
    /// Over the rate window, the busier end's (when there were two readings).
    std::optional<PortRates> rates;
    /// Error counter increments at either end since its first reading.
    std::optional<uint64_t> errors_total;
    /// Miscabled: the cables the expected shape has at its ports, each
    /// "leaf03[1] ↔ h0001[1]" (its ends as end_name writes them).
    std::vector<std::string> planned;
    /// Up, as planned or not.
    bool cabled() const { return status == LinkStatus::Up || status == LinkStatus::Miscabled; }
};

struct BoardNode {
    std::string name;   ///< the node description (or GUID)
    std::string label;  ///< short: a host's first word, a switch's description
    Guid guid = 0;
    Lid lid = 0;
    NodeType type = NodeType::CA;
    int tier = kTierUnreachable;
    bool present = true;
    Health health = Health::Ok;
    std::vector<size_t> links;  ///< indices into Board::links, by local port
};

/// One block of the fabric view: rows of tier t against columns of tier t+1.
struct TierBlock {
    int tier = 1;
    std::vector<size_t> rows;  ///< node indices, natural name order
    std::vector<size_t> cols;
    /// rows.size() x cols.size(): the links between each row and column node.
    std::vector<std::vector<size_t>> cells;
    /// Per row: its links to tier t-1 (a leaf's hosts), by local port.
    std::vector<std::vector<size_t>> down;
    const std::vector<size_t>& cell(size_t r, size_t c) const { return cells[r * cols.size() + c]; }
};

struct Board {
    std::vector<BoardNode> nodes;
    std::vector<BoardLink> links;
    std::vector<Finding> findings;  ///< errors first
    /// Node indices per tier 0..max_tier, natural name order.
    std::vector<std::vector<size_t>> tiers;
    std::vector<size_t> unreachable;  ///< switches with no path to a host
    /// Top block first: spines-core, then leaves-spines.
    std::vector<TierBlock> blocks;
    size_t count(LinkStatus s) const;
    size_t count(Health h) const;
    /// "leaf01[19]".
    std::string end_name(const BoardEnd& e) const;
    std::optional<size_t> node_of(Guid g) const;

    std::map<Guid, size_t> guid_index;  ///< present nodes by GUID
};

struct BoardInput {
    const Fabric& fabric;
    const Tiers& tiers;
    /// What should be there (a plan, or a baseline turned into one); may be null.
    const Plan* expected = nullptr;
    std::vector<Finding> findings;
    const RateMap* rates = nullptr;   ///< over the rate window
    const RateMap* totals = nullptr;  ///< since each port's first reading
};

Board build_board(const BoardInput& in);

Health health_of(Severity s);
/// "h2" < "h10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace fabscope::tui
