#include "discover/sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "discover/pma_decode.h"
#include "discover/smp_decode.h"
#include "util/exit_status.h"
#include "util/time_util.h"
#include "util/version.h"

namespace fabscope {
namespace {

using Outcome = MadResult::Outcome;
using Raw = std::array<uint8_t, kSmpDataSize>;

constexpr uint8_t kNoRoute = 0xFF;

Raw raw_of(std::span<const uint8_t, 64> d) {
    Raw r{};
    std::copy(d.begin(), d.end(), r.begin());
    return r;
}

class Sweeper {
  public:
    Sweeper(MadTransport& t, const Clock& c, const LocalPort& local, const SweepOptions& o)
        : engine_(t, c, o.engine), local_(local), opts_(o) {}

    Result<SweepOutput> run() {
        SnapshotSource src;
        src.method = "sweep";
        src.ca = local_.ca;
        src.ca_port = local_.port;
        src.tool_version = version();
        src.started = iso8601_now();
        Stopwatch sw;

        probe(mad::Address{}, std::nullopt);
        engine_.run();
        if (order_.empty()) {
            return make_error(
                fmt::format("the local node did not answer a NodeInfo on {} port {}{}{}", local_.ca,
                            local_.port, local_error_.empty() ? "" : ": ", local_error_),
                kExitCannotRun);
        }
        src.duration_s = sw.seconds();
        src.mads_sent = engine_.stats().sent;
        src.mad_stats = engine_.stats();
        report_failures();
        auto fabric = finalize();
        if (!fabric) return fabric.error();
        return SweepOutput{Snapshot{std::move(src), std::move(fabric).value()},
                           std::move(problems_)};
    }

  private:
    struct NodeState {
        Node node;
        mad::Address path;
        uint8_t arrival = 0;  // port it was reached through (0 for the local node)
        bool local = false;
        std::map<uint8_t, Raw> port_info;
        std::optional<SwitchInfo> switch_info;
        std::map<uint8_t, PortCounters> counters;
        bool lft_requested = false;
    };

    std::string where(const NodeState& n) const {
        return n.node.description.empty() ? format_guid(n.node.guid) : n.node.description;
    }

    void problem(std::string kind, Severity sev, std::string summary, std::vector<PortRef> at,
                 nlohmann::json ev) {
        problems_.push_back(
            Finding{std::move(kind), sev, std::move(summary), std::move(at), std::move(ev)});
    }

    // --- topology -----------------------------------------------------

    void probe(const mad::Address& path, std::optional<PortRef> from) {
        mad::Request r{mad::kClassSmpDirected, mad::kAttrNodeInfo, 0, path, 0};
        engine_.submit(r,
                       [this, path, from](const MadResult& res) { on_node_info(path, from, res); });
    }

    void on_node_info(const mad::Address& path, std::optional<PortRef> from, const MadResult& res) {
        std::optional<NodeInfo> ni;
        if (res.ok()) ni = decode_node_info(mad::smp_data(res.reply));
        if (!ni) {
            std::string why = res.ok() ? "an invalid NodeInfo (unknown node type)" : res.detail;
            if (!from) {
                local_error_ = why;
                return;
            }
            const NodeState& f = nodes_.at(from->node);
            problem("unreachable", Severity::Error,
                    fmt::format("nothing answered behind {}[{}]: {}", where(f), from->port, why),
                    {*from}, {{"path", path.str()}, {"reason", why}, {"attempts", res.attempts}});
            return;
        }
        PortRef here{ni->node_guid, ni->local_port};
        if (auto it = nodes_.find(ni->node_guid); it != nodes_.end()) {
            if (from) link(*from, here, path);
            return;
        }
        NodeState st;
        st.node.guid = ni->node_guid;
        st.node.type = ni->type;
        st.node.num_ports = ni->num_ports;
        st.node.system_guid = ni->system_guid;
        st.node.vendor_id = ni->vendor_id;
        st.node.device_id = ni->device_id;
        st.node.revision = ni->revision;
        st.path = path;
        st.arrival = ni->local_port;
        st.local = !from;
        port_guid_[ni->node_guid] = ni->port_guid;
        nodes_.emplace(ni->node_guid, std::move(st));
        order_.push_back(ni->node_guid);
        if (from) link(*from, here, path);
        query_node(ni->node_guid);
    }

    void link(PortRef a, PortRef b, const mad::Address& path) {
        for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
            auto it = peers_.find(x);
            if (it != peers_.end() && it->second != y) {
                const NodeState& n = nodes_.at(b.node);
                problem("duplicate_guid", Severity::Error,
                        fmt::format("GUID {} answers at {} and at {}: two nodes share it (port {} "
                                    "is linked to {} "
                                    "and to {})",
                                    format_guid(b.node), n.path.str(), path.str(), x.port,
                                    format_guid(it->second.node), format_guid(y.node)),
                        {a, b},
                        {{"guid", format_guid(b.node)},
                         {"first_path", n.path.str()},
                         {"path", path.str()}});
                return;
            }
        }
        peers_[a] = b;
        peers_[b] = a;
    }

    void query_node(Guid guid) {
        NodeState& n = nodes_.at(guid);
        const mad::Address path = n.path;
        auto dr = [&](uint16_t attr, uint32_t mod) {
            return mad::Request{mad::kClassSmpDirected, attr, mod, path, 0};
        };
        engine_.submit(dr(mad::kAttrNodeDescription, 0), [this, guid](const MadResult& res) {
            NodeState& st = nodes_.at(guid);
            if (res.ok()) {
                st.node.description = decode_node_description(mad::smp_data(res.reply));
            } else {
                failed(st, 0, "NodeDescription", res);
            }
        });
        bool sw = n.node.type == NodeType::Switch;
        if (sw) {
            engine_.submit(dr(mad::kAttrSwitchInfo, 0), [this, guid](const MadResult& res) {
                NodeState& st = nodes_.at(guid);
                if (!res.ok()) return failed(st, 0, "SwitchInfo", res);
                st.switch_info = decode_switch_info(mad::smp_data(res.reply));
                st.node.enhanced_port0 = st.switch_info->enhanced_port0;
                maybe_lft(guid);
            });
        }
        for (unsigned p = sw ? 0U : 1U; p <= n.node.num_ports; ++p) {
            auto port = static_cast<uint8_t>(p);
            engine_.submit(dr(mad::kAttrPortInfo, p), [this, guid, port](const MadResult& res) {
                on_port_info(guid, port, res);
            });
        }
    }

    // Failed queries are gathered per node, attribute and reason, so one
    // lossy route makes one finding ("counters of ports 1-7"), not seven.
    void failed(const NodeState& n, uint8_t port, std::string what, const MadResult& res) {
        failures_[{n.node.guid, std::move(what), res.detail}].push_back(port);
    }

    void report_failures() {
        for (const auto& [key, ports] : failures_) {
            const auto& [guid, what, reason] = key;
            const NodeState& n = nodes_.at(guid);
            std::string which;
            if (ports.size() > 1 || ports.front() != 0) {
                which = fmt::format(" of port{} {}", ports.size() == 1 ? "" : "s",
                                    fmt::join(ports, ","));
            }
            std::vector<PortRef> at;
            for (uint8_t p : ports) at.push_back(PortRef{guid, p});
            std::string hint;
            if (reason.find("(LID ") != std::string::npos &&
                n.port_info.count(n.node.type == NodeType::Switch ? 0 : ports.front())) {
                hint =
                    "; it answers by directed route, so the LID-routed path to it is losing MADs";
            }
            problem("query_failed", Severity::Warning,
                    fmt::format("{}: {}{} not read: {}{}", where(n), what, which, reason, hint),
                    std::move(at),
                    {{"attribute", what},
                     {"reason", reason},
                     {"path", n.path.str()},
                     {"ports", ports}});
        }
    }

    void on_port_info(Guid guid, uint8_t port, const MadResult& res) {
        NodeState& n = nodes_.at(guid);
        if (!res.ok()) return failed(n, port, "PortInfo", res);
        auto data = mad::smp_data(res.reply);
        n.port_info[port] = raw_of(data);
        bool up = decode_port_info(data, port, 0).link_up();
        bool is_switch = n.node.type == NodeType::Switch;
        if (port == 0) {
            maybe_lft(guid);
            for (const auto& [p, raw] : n.port_info) {
                if (p != 0) maybe_counters(guid, p);
            }
            return;
        }
        if (up) maybe_counters(guid, port);
        // Follow links out of switches, and out of the local port; never back the way we came.
        bool follow =
            up && (is_switch ? (n.local || port != n.arrival) : (n.local && port == local_.port));
        if (!follow) return;
        if (n.path.dr_path.size() >= opts_.max_hops) {
            problem("max_hops", Severity::Warning,
                    fmt::format("{}[{}] leads further than {} hops; not followed", where(n), port,
                                opts_.max_hops),
                    {PortRef{guid, port}}, {{"max_hops", opts_.max_hops}});
            return;
        }
        mad::Address next = n.path;
        next.dr_path.push_back(port);
        probe(next, PortRef{guid, port});
    }

    // --- routes ---------------------------------------------------------

    Lid node_lid(const NodeState& n, uint8_t port) const {
        uint8_t p = n.node.type == NodeType::Switch ? 0 : port;
        auto it = n.port_info.find(p);
        if (it == n.port_info.end()) return 0;
        return decode_port_info(SmpData(it->second), p, 0).lid;
    }

    void maybe_lft(Guid guid) {
        NodeState& n = nodes_.at(guid);
        if (!opts_.routes || n.lft_requested || !n.switch_info || !n.port_info.count(0)) return;
        n.lft_requested = true;
        uint16_t top = n.switch_info->linear_fdb_top;
        if (top == 0) return;  // no unicast routes programmed (no SM yet)
        n.node.lft.assign(static_cast<size_t>(top) + 1, kNoRoute);
        Lid lid = node_lid(n, 0);
        for (unsigned block = 0; block <= top / 64U; ++block) {
            // LID-routed where the switch has a LID, directed route otherwise.
            read_lft_block(guid, block, lid != 0);
        }
    }

    // LID-routed where the switch has a LID (cheaper for its SMA); if the
    // route to that LID loses MADs, again by directed route, which takes
    // another way in.
    void read_lft_block(Guid guid, unsigned block, bool by_lid) {
        const NodeState& n = nodes_.at(guid);
        mad::Request r = by_lid ? mad::Request{mad::kClassSmpLid, mad::kAttrLinearForwardingTable,
                                               block, mad::Address{{}, node_lid(n, 0)}, 0}
                                : mad::Request{mad::kClassSmpDirected,
                                               mad::kAttrLinearForwardingTable, block, n.path, 0};
        engine_.submit(r,
                       [this, guid, block, by_lid](const MadResult& res) {
                           NodeState& st = nodes_.at(guid);
                           if (!res.ok()) {
                               if (by_lid && res.outcome != Outcome::BadStatus)
                                   return read_lft_block(guid, block, false);
                               return failed(st, 0, "LinearForwardingTable", res);
                           }
                           auto d = mad::smp_data(res.reply);
                           for (size_t i = 0; i < 64; ++i) {
                               size_t lid_index = block * 64U + i;
                               if (lid_index < st.node.lft.size()) st.node.lft[lid_index] = d[i];
                           }
                       },
                       {MadEngine::key_of(n.path)});
    }

    // --- counters -------------------------------------------------------

    void maybe_counters(Guid guid, uint8_t port) {
        NodeState& n = nodes_.at(guid);
        if (!opts_.counters || n.counters.count(port)) return;
        auto it = n.port_info.find(port);
        if (it == n.port_info.end() || !decode_port_info(SmpData(it->second), port, 0).link_up())
            return;
        if (n.node.type == NodeType::Switch && !n.port_info.count(0))
            return;  // its LID comes with port 0
        Lid lid = node_lid(n, port);
        if (lid == 0) return;  // PMA Gets are LID-routed; without an SM there is no LID
        n.counters[port] = PortCounters{};
        std::vector<std::string> deps{MadEngine::key_of(n.path)};
        mad::Request base{mad::kClassPerf, mad::kAttrPortCounters, 0, {{}, lid}, port};
        engine_.submit(
            base,
            [this, guid, port](const MadResult& res) {
                NodeState& st = nodes_.at(guid);
                if (!res.ok()) {
                    st.counters.erase(port);
                    return failed(st, port, "PortCounters", res);
                }
                PortCounters pc = decode_port_counters(mad::pma_data(res.reply));
                PortCounters& have = st.counters[port];
                pc.read_at_ms = engine_.clock().unix_ms();
                if (have.extended) {  // the extended answer came first: keep its 64-bit values
                    for (Counter c :
                         {Counter::PortXmitData, Counter::PortRcvData, Counter::PortXmitPkts,
                          Counter::PortRcvPkts, Counter::PortUnicastXmitPkts,
                          Counter::PortUnicastRcvPkts, Counter::PortMulticastXmitPkts,
                          Counter::PortMulticastRcvPkts}) {
                        if (auto v = have.get(c)) pc.set(c, *v);
                    }
                    pc.extended = true;
                }
                have = pc;
                have.read_at_ms = pc.read_at_ms;
                base_done_.insert({guid, port});
            },
            deps);
        mad::Request ext = base;
        ext.attr_id = mad::kAttrPortCountersExtended;
        engine_.submit(
            ext,
            [this, guid, port](const MadResult& res) {
                NodeState& st = nodes_.at(guid);
                if (!res.ok() || !st.counters.count(port))
                    return;  // no extended counters: 32-bit ones stand
                merge_port_counters_extended(st.counters[port], mad::pma_data(res.reply));
            },
            deps);
    }

    // --- the snapshot ---------------------------------------------------

    Result<Fabric> finalize() {
        std::vector<Node> out;
        out.reserve(order_.size());
        for (Guid g : order_) {
            NodeState& n = nodes_.at(g);
            uint32_t switch_cap = 0;
            if (auto it = n.port_info.find(0); it != n.port_info.end()) {
                switch_cap = decode_port_capability_mask(SmpData(it->second));
            }
            for (const auto& [p, raw] : n.port_info) {
                uint32_t cap = n.node.type == NodeType::Switch
                                   ? switch_cap
                                   : decode_port_capability_mask(SmpData(raw));
                Port port = decode_port_info(SmpData(raw), p, cap);
                port.guid = port_guid_[g];
                if (n.node.type == NodeType::Switch && p != 0) {
                    Lid lid = node_lid(n, 0);
                    port.lid = lid;
                }
                if (auto c = n.counters.find(p);
                    c != n.counters.end() && base_done_.count({g, p})) {
                    port.counters = c->second;
                }
                n.node.ports.push_back(port);
            }
            out.push_back(std::move(n.node));
        }
        // Peers only where both ends were read.
        std::unordered_map<Guid, size_t> index;
        for (size_t i = 0; i < out.size(); ++i) index[out[i].guid] = i;
        for (const auto& [a, b] : peers_) {
            Port* pa = out[index.at(a.node)].port(a.port);
            Port* pb = index.count(b.node) ? out[index.at(b.node)].port(b.port) : nullptr;
            if (pa && pb) pa->peer = b;
        }
        return Fabric::build(std::move(out));
    }

    MadEngine engine_;
    LocalPort local_;
    SweepOptions opts_;
    std::unordered_map<Guid, NodeState> nodes_;
    std::unordered_map<Guid, Guid> port_guid_;
    std::vector<Guid> order_;
    std::map<PortRef, PortRef> peers_;
    std::set<std::pair<Guid, uint8_t>> base_done_;
    std::map<std::tuple<Guid, std::string, std::string>, std::vector<uint8_t>> failures_;
    std::vector<Finding> problems_;
    std::string local_error_;
};

}  // namespace

Result<SweepOutput> sweep_fabric(MadTransport& transport, const Clock& clock,
                                 const LocalPort& local, const SweepOptions& options) {
    Sweeper s(transport, clock, local, options);
    return s.run();
}

}  // namespace fabscope
