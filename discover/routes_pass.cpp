#include "discover/routes_pass.h"

namespace fabscope {
namespace {

constexpr uint8_t kNoRoute = 0xFF;

void read_block(SweepContext& ctx, Guid guid, unsigned block, bool by_lid) {
    const SweptNode& n = ctx.nodes.at(guid);
    mad::Request r = by_lid ? mad::Request{mad::kClassSmpLid, mad::kAttrLinearForwardingTable,
                                           block, mad::Address{{}, n.lid(0)}, 0}
                            : mad::Request{mad::kClassSmpDirected, mad::kAttrLinearForwardingTable,
                                           block, n.path, 0};
    ctx.engine.submit(r,
                      [&ctx, guid, block, by_lid](const MadResult& res) {
                          SweptNode& st = ctx.nodes.at(guid);
                          if (!res.ok()) {
                              if (by_lid && res.outcome != MadResult::Outcome::BadStatus &&
                                  res.outcome != MadResult::Outcome::Cancelled)
                                  return read_block(ctx, guid, block, false);
                              return ctx.failed(st, 0, "LinearForwardingTable", res);
                          }
                          auto d = mad::smp_data(res.reply);
                          for (size_t i = 0; i < 64; ++i) {
                              size_t lid_index = block * 64U + i;
                              if (lid_index < st.lft.size()) st.lft[lid_index] = d[i];
                          }
                      },
                      {MadEngine::key_of(n.path)});
}

}  // namespace

void routes_pass(SweepContext& ctx) {
    for (Guid guid : ctx.order) {
        SweptNode& n = ctx.nodes.at(guid);
        if (!n.switch_info || !n.replies.port_info.count(0)) continue;
        uint16_t top = n.switch_info->linear_fdb_top;
        if (top == 0) continue;
        n.lft.assign(static_cast<size_t>(top) + 1, kNoRoute);
        const bool by_lid = n.lid(0) != 0;
        for (unsigned block = 0; block <= top / 64U; ++block) read_block(ctx, guid, block, by_lid);
    }
    ctx.engine.run();
}

}  // namespace fabscope
