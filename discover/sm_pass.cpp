#include "discover/sm_pass.h"

#include <algorithm>
#include <set>

#include "discover/smp_decode.h"

namespace fabscope {
namespace {

// A hostile or broken PartitionCap (16 bits) must not cost 2,048 MADs a
// port: 1,024 entries are eight times what a ConnectX offers.
constexpr unsigned kMaxPkeyBlocks = 32;

unsigned pkey_blocks(uint16_t cap) {
    return std::clamp((cap + kPkeysPerBlock - 1) / kPkeysPerBlock, 1U, kMaxPkeyBlocks);
}

/// How to reach port `port` of `n` with an SMP that it must take on that
/// port (a CA's SMInfo and P_Key table are per port): the directed route for
/// the port it was reached through (or a switch), the port's LID otherwise.
std::optional<mad::Address> address_of(const SweptNode& n, uint8_t port) {
    if (n.is_switch() || port == n.arrival || n.local) return n.path;
    if (Lid lid = n.lid(port); lid != 0) return mad::Address{{}, lid};
    return std::nullopt;
}

void ask_sm_info(SweepContext& ctx, const SweptNode& n, uint8_t port) {
    auto to = address_of(n, port);
    if (!to) return;
    const Guid guid = n.guid();
    // Optional: an SM that does not answer is the SM check's finding (it
    // names the port), and must not make the node's other reads unreachable.
    ctx.engine.submit_optional(mad::smp_get(mad::kAttrSMInfo, 0, *to),
                               [&ctx, guid, port](const MadResult& res) {
                                   if (!res.ok()) return;
                                   if (auto info = decode_sm_info(mad::smp_data(res.reply)))
                                       ctx.nodes.at(guid).sm[port] = *info;
                               },
                               {MadEngine::key_of(n.path)});
}

struct PkeyReads {
    std::map<PortRef, std::vector<uint16_t>> tables;  // whole tables, 0 = unused
    std::set<PortRef> failed;
};

void ask_pkeys(SweepContext& ctx, PkeyReads& reads, const SweptNode& n, uint8_t port,
               unsigned blocks) {
    auto to = address_of(n, port);
    if (!to) return;
    const PortRef ref{n.guid(), port};
    reads.tables[ref].assign(static_cast<size_t>(blocks) * kPkeysPerBlock, 0);
    for (unsigned b = 0; b < blocks; ++b) {
        // A switch's table is its port's (in the modifier's upper half); a CA's
        // is the one of the port the SMP arrives on.
        const uint32_t mod = n.is_switch() ? (static_cast<uint32_t>(port) << 16U) | b : b;
        ctx.engine.submit(
            mad::smp_get(mad::kAttrPKeyTable, mod, *to),
            [&ctx, &reads, ref, b](const MadResult& res) {
                if (!res.ok()) {
                    reads.failed.insert(ref);
                    return ctx.failed(ctx.nodes.at(ref.node), ref.port, "PKeyTable", res);
                }
                auto keys = decode_pkey_block(mad::smp_data(res.reply));
                std::copy(keys.begin(), keys.end(),
                          reads.tables[ref].begin() + static_cast<ptrdiff_t>(b) * kPkeysPerBlock);
            },
            {MadEngine::key_of(n.path)});
    }
}

/// Port `p` of `n` is up and its peer is a CA: a switch port whose P_Key
/// table filters a host's traffic.
bool faces_a_ca(const SweepContext& ctx, const SweptNode& n, uint8_t p) {
    auto peer = ctx.peers.find(PortRef{n.guid(), p});
    if (peer == ctx.peers.end()) return false;
    auto it = ctx.nodes.find(peer->second.node);
    return it != ctx.nodes.end() && it->second.replies.info.type == NodeType::CA;
}

void ask_every_pkey_table(SweepContext& ctx, PkeyReads& reads) {
    for (Guid g : ctx.order) {
        const SweptNode& n = ctx.nodes.at(g);
        for (const auto& [p, raw] : n.replies.port_info) {
            if (p == 0 || !n.port_up(p)) continue;
            if (!n.is_switch()) {
                ask_pkeys(ctx, reads, n, p, pkey_blocks(n.replies.info.partition_cap));
            } else if (n.switch_info && n.switch_info->partition_enforcement_cap > 0 &&
                       faces_a_ca(ctx, n, p)) {
                ask_pkeys(ctx, reads, n, p, pkey_blocks(n.switch_info->partition_enforcement_cap));
            }
        }
    }
}

}  // namespace

void sm_pass(SweepContext& ctx) {
    if (ctx.options.subnet_managers) {
        for (Guid g : ctx.order) {
            const SweptNode& n = ctx.nodes.at(g);
            for (const auto& [p, raw] : n.replies.port_info) {
                if (n.is_switch() && p != 0) continue;  // a switch's SM sits on port 0
                if ((decode_port_capability_mask(SmpData(raw)) & kCapIsSM) != 0)
                    ask_sm_info(ctx, n, p);
            }
        }
    }
    PkeyReads reads;
    if (ctx.options.pkeys) ask_every_pkey_table(ctx, reads);
    ctx.engine.run();
    for (auto& [ref, table] : reads.tables) {
        if (reads.failed.count(ref)) continue;  // half a table would read as missing partitions
        std::erase(table, uint16_t{0});
        ctx.nodes.at(ref.node).pkeys[ref.port] = std::move(table);
    }
}

std::map<PortRef, SmInfo> read_sm_again(MadTransport& transport, const Clock& clock,
                                        const EngineOptions& options, const Fabric& f) {
    MadEngine engine(transport, clock, options);
    std::map<PortRef, SmInfo> out;
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            const Lid lid = n.type == NodeType::Switch ? n.lid() : p.lid;
            if (!p.sm || lid == 0) continue;
            const PortRef ref{n.guid, p.num};
            engine.submit_optional(
                mad::Request{mad::kClassSmpLid, mad::kAttrSMInfo, 0, mad::Address{{}, lid}, 0},
                [&out, ref](const MadResult& res) {
                    if (!res.ok()) return;
                    if (auto info = decode_sm_info(mad::smp_data(res.reply))) out[ref] = *info;
                });
        }
    }
    engine.run();
    return out;
}

}  // namespace fabscope
