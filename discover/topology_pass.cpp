#include "discover/topology_pass.h"

#include <fmt/format.h>

#include <deque>

namespace fabscope {
namespace {

using Outcome = MadResult::Outcome;

class TopologyWalk {
  public:
    explicit TopologyWalk(SweepContext& ctx) : ctx_(ctx) {}

    void run() {
        probe(mad::Address{}, std::nullopt);
        ctx_.engine.run([this] { return query_next(); });
    }

  private:
    void probe(const mad::Address& path, std::optional<PortRef> from) {
        mad::Request r{mad::kClassSmpDirected, mad::kAttrNodeInfo, 0, path, 0};
        ctx_.engine.submit(
            r, [this, path, from](const MadResult& res) { on_node_info(path, from, res); });
    }

    void unreachable(const mad::Address& path, PortRef from, const MadResult& res) {
        const SweptNode& f = ctx_.nodes.at(from.node);
        std::string at = fmt::format("{}[{}]", ctx_.where(f), from.port);
        std::string cause;
        std::string summary;
        switch (res.outcome) {
            case Outcome::Timeout:
                if (res.lost) {
                    // Dropped on the way: the link is there, we cannot look through it.
                    cause = "lost";
                    summary = fmt::format(
                        "MADs through {} were lost on the way (the port is up; the link is there "
                        "but what is behind it could not be read): {}",
                        at, res.detail);
                } else {
                    cause = "silent";
                    summary = fmt::format(
                        "nothing answered behind {} (the port is up; the node behind it is "
                        "silent): {}",
                        at, res.detail);
                }
                break;
            case Outcome::Unreachable:
                cause = "given_up";
                summary = fmt::format("{} not followed: {}", at, res.detail);
                break;
            case Outcome::Ok:
                cause = "invalid";
                summary = fmt::format(
                    "the node behind {} sent an invalid NodeInfo (unknown "
                    "node type)",
                    at);
                break;
            default:
                cause = "refused";
                summary =
                    fmt::format("the node behind {} did not answer NodeInfo: {}", at, res.detail);
                break;
        }
        ctx_.problem("unreachable", Severity::Error, std::move(summary), {from},
                     {{"path", path.str()},
                      {"cause", cause},
                      {"reason", res.ok() ? "invalid NodeInfo" : res.detail},
                      {"attempts", res.attempts}});
    }

    void on_node_info(const mad::Address& path, std::optional<PortRef> from, const MadResult& res) {
        if (res.outcome == Outcome::Cancelled) return;  // stopped: no finding, the snapshot says so
        std::optional<NodeInfo> ni;
        if (res.ok()) ni = decode_node_info(mad::smp_data(res.reply));
        if (!ni) {
            if (!from) {
                ctx_.local_error =
                    res.ok() ? "an invalid NodeInfo (unknown node type)" : res.detail;
                return;
            }
            unreachable(path, *from, res);
            return;
        }
        PortRef here{ni->node_guid, ni->local_port};
        if (ctx_.nodes.count(ni->node_guid)) {
            if (from) link(*from, here, path);
            return;
        }
        SweptNode st;
        st.replies.info = *ni;
        st.path = path;
        st.arrival = ni->local_port;
        st.local = !from;
        ctx_.nodes.emplace(ni->node_guid, std::move(st));
        ctx_.order.push_back(ni->node_guid);
        if (from) link(*from, here, path);
        to_query_.push_back({ni->node_guid, ctx_.engine.chain_depth()});
    }

    /// Queries the next node found, when the engine's queue is short (it
    /// asks): a fat tree's spines find every leaf at once, and 128 leaves'
    /// 67 queries each queued together would hold megabytes of requests for
    /// nothing (the engine sends 64 at a time).
    bool query_next() {
        if (to_query_.empty()) return false;
        const auto [g, depth] = to_query_.front();
        to_query_.pop_front();
        MadEngine::ChainOf after(ctx_.engine, depth);  // its queries wait for its NodeInfo
        query_node(g);
        return true;
    }

    void link(PortRef a, PortRef b, const mad::Address& path) {
        for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
            auto it = ctx_.peers.find(x);
            if (it != ctx_.peers.end() && it->second != y) {
                const SweptNode& n = ctx_.nodes.at(b.node);
                ctx_.problem("duplicate_guid", Severity::Error,
                             fmt::format("GUID {} answers at {} and at {}: two nodes share it "
                                         "(port {} is linked to {} and to {})",
                                         format_guid(b.node), n.path.str(), path.str(), x.port,
                                         format_guid(it->second.node), format_guid(y.node)),
                             {a, b},
                             {{"guid", format_guid(b.node)},
                              {"first_path", n.path.str()},
                              {"path", path.str()}});
                return;
            }
        }
        ctx_.peers[a] = b;
        ctx_.peers[b] = a;
    }

    void query_node(Guid guid) {
        SweptNode& n = ctx_.nodes.at(guid);
        const mad::Address path = n.path;
        auto dr = [&](uint16_t attr, uint32_t mod) {
            return mad::Request{mad::kClassSmpDirected, attr, mod, path, 0};
        };
        ctx_.engine.submit(dr(mad::kAttrNodeDescription, 0), [this, guid](const MadResult& res) {
            SweptNode& st = ctx_.nodes.at(guid);
            if (res.ok()) {
                st.replies.description = decode_node_description(mad::smp_data(res.reply));
            } else {
                ctx_.failed(st, 0, "NodeDescription", res);
            }
        });
        const bool sw = n.is_switch();
        if (sw) {
            ctx_.engine.submit(dr(mad::kAttrSwitchInfo, 0), [this, guid](const MadResult& res) {
                SweptNode& st = ctx_.nodes.at(guid);
                if (!res.ok()) return ctx_.failed(st, 0, "SwitchInfo", res);
                st.switch_info = decode_switch_info(mad::smp_data(res.reply));
                st.replies.enhanced_port0 = st.switch_info->enhanced_port0;
            });
        }
        n.replies.port_info.reserve(n.replies.info.num_ports + 1U);
        for (unsigned p = sw ? 0U : 1U; p <= n.replies.info.num_ports; ++p) {
            auto port = static_cast<uint8_t>(p);
            ctx_.engine.submit(dr(mad::kAttrPortInfo, p), [this, guid, port](const MadResult& res) {
                on_port_info(guid, port, res);
            });
        }
    }

    void on_port_info(Guid guid, uint8_t port, const MadResult& res) {
        SweptNode& n = ctx_.nodes.at(guid);
        if (!res.ok()) return ctx_.failed(n, port, "PortInfo", res);
        n.replies.port_info[port] = raw_smp(mad::smp_data(res.reply));
        if (port == 0 || !n.port_up(port)) return;
        // Follow links out of switches, and out of the local port; never back the way we came.
        bool follow =
            n.is_switch() ? (n.local || port != n.arrival) : (n.local && port == ctx_.local.port);
        // A cable seen from its other end needs no NodeInfo from this one: the
        // reply would name the port it was seen from.
        if (!follow || ctx_.peers.count(PortRef{guid, port})) return;
        if (n.path.dr_path.size() >= ctx_.options.max_hops) {
            ctx_.problem("max_hops", Severity::Warning,
                         fmt::format("{}[{}] leads further than {} hops; not followed",
                                     ctx_.where(n), port, ctx_.options.max_hops),
                         {PortRef{guid, port}}, {{"max_hops", ctx_.options.max_hops}});
            return;
        }
        mad::Address next = n.path;
        next.dr_path.push_back(port);
        probe(next, PortRef{guid, port});
    }

    SweepContext& ctx_;
    std::deque<std::pair<Guid, int>> to_query_;  ///< found, not yet queried; the NodeInfo's depth
};

}  // namespace

void topology_pass(SweepContext& ctx) {
    TopologyWalk walk(ctx);
    walk.run();
}

}  // namespace fabscope
