#include "discover/vl_inputs.h"

#include "discover/sa_path_record.h"
#include "discover/smp_decode.h"

namespace fabscope {

VlReadings read_vl_inputs(MadTransport& transport, const Clock& clock, const EngineOptions& options,
                          const Fabric& f, const VlNeeds& needs, Lid sm_lid) {
    VlReadings out;
    MadEngine engine(transport, clock, options);
    auto ask_sl = [&](const LidPair& flow) {
        engine.submit_optional(sa::path_request_by_lids(sm_lid, flow.first, flow.second),
                               [&out, flow](const MadResult& r) {
                                   if (!r.ok()) return;
                                   if (auto pr = sa::decode_path_reply(r.reply))
                                       out.sls[flow] = pr->sl;
                               });
    };
    // One flow first: an SA that does not answer it costs one query's
    // retries, not every flow's (the loops then stay one-VL).
    if (needs.flows.empty()) return out;
    ask_sl(needs.flows.front());
    engine.run();
    if (out.sls.empty()) {
        out.sa_silent = true;
        out.interrupted = engine.cancelled();
        return out;
    }
    for (size_t i = 1; i < needs.flows.size(); ++i) ask_sl(needs.flows[i]);
    for (const Sl2VlKey& key : needs.tables) {
        const Node* n = f.node(key.node);
        if (!n || n->lid() == 0) continue;
        const mad::Request req{mad::kClassSmpLid, mad::kAttrSLtoVLMappingTable,
                               static_cast<uint32_t>(key.in << 8U) | key.out,
                               mad::Address{{}, n->lid()}, 0};
        engine.submit_optional(req, [&out, key](const MadResult& r) {
            if (r.ok()) out.tables[key] = decode_sl2vl(mad::smp_data(r.reply));
        });
    }
    engine.run();
    out.interrupted = engine.cancelled();
    return out;
}

}  // namespace fabscope
