#include "discover/fec_probe.h"

#include "discover/pma_decode.h"
#include "discover/smp_decode.h"

namespace fabscope {
namespace {

void submit_ext_speeds(MadEngine& engine, const SweptNode& n, uint8_t port, Lid lid,
                       PmaReading& into) {
    const mad::Request req{
        mad::kClassPerf, mad::kAttrPortExtendedSpeedsCounters, 0, {{}, lid}, port};
    engine.submit_optional(req,
                           [&into](const MadResult& r) {
                               if (r.ok()) into.ext_speeds = r.reply;
                           },
                           {MadEngine::key_of(n.path)});
}

}  // namespace

bool FecProbe::eligible(const SweptNode& n, uint8_t port) {
    return (n.capability_mask(port) & kCapIsExtendedSpeedsSupported) != 0;
}

void FecProbe::offer(const SweptNode& n, uint8_t port, Lid lid, PmaReading& into) {
    if (!eligible(n, port)) return;
    const Model model = n.pma_model();
    const PortRef ref{n.guid(), port};
    if (!probe_of_.count(model) && !n.runs_sm()) {
        probe_of_.emplace(model, ref);
        submit_ext_speeds(ctx_.engine, n, port, lid, into);
        return;
    }
    rest_[model].push_back(Candidate{ref, lid});
}

bool FecProbe::submit_rest(std::map<PortRef, PmaReading>& readings) {
    bool queued = false;
    for (const auto& entry : probe_of_) {
        const Model model = entry.first;  // captured below (a structured binding cannot be)
        const PortRef probe = entry.second;
        if (!readings[probe].ext_speeds) continue;  // not supported by this model
        const SweptNode& first = ctx_.nodes.at(probe.node);
        const mad::Request cpi{
            mad::kClassPerf, mad::kAttrClassPortInfo, 0, {{}, first.lid(probe.port)}, 0};
        ctx_.engine.submit_optional(cpi,
                                    [this, model](const MadResult& r) {
                                        if (r.ok())
                                            class_cap_[model] =
                                                pma_class_capability_mask(mad::pma_data(r.reply));
                                    },
                                    {MadEngine::key_of(first.path)});
        std::vector<Candidate> ports = rest_[model];
        ports.push_back(Candidate{probe, first.lid(probe.port)});
        for (const Candidate& c : ports) {
            const SweptNode& n = ctx_.nodes.at(c.ref.node);
            if (c.ref != probe)
                submit_ext_speeds(ctx_.engine, n, c.ref.port, c.lid, readings[c.ref]);
            if ((n.capability_mask2(c.ref.port) & kCap2IsPortInfoExtendedSupported) == 0) continue;
            const mad::Request pie{n.path.directed() ? mad::kClassSmpDirected : mad::kClassSmpLid,
                                   mad::kAttrPortInfoExtended, c.ref.port, n.path, 0};
            ctx_.engine.submit_optional(
                pie,
                [this, ref = c.ref](const MadResult& r) {
                    if (r.ok() && port_info_ext_rs_fec_active(mad::smp_data(r.reply)))
                        rs_fec_active_.insert(ref);
                },
                {MadEngine::key_of(n.path)});
        }
        queued = true;
    }
    return queued;
}

void FecProbe::decide_layouts(std::map<PortRef, PmaReading>& readings) const {
    for (auto& [ref, r] : readings) {
        if (!r.ext_speeds) continue;
        auto cap = class_cap_.find(ctx_.nodes.at(ref.node).pma_model());
        const bool rs_fec_counters =
            cap != class_cap_.end() && (cap->second & kPmaCapRsFecCounters) != 0;
        r.fec =
            rs_fec_counters && rs_fec_active_.count(ref) ? FecLayout::RsFec : FecLayout::Original;
    }
}

}  // namespace fabscope
