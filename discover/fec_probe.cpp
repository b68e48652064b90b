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

/// Whether the port advertises extended speeds (and so may have 0x1F).
bool advertises_ext_speeds(const SweptNode& n, uint8_t port) {
    return (n.capability_mask(port) & kCapIsExtendedSpeedsSupported) != 0;
}

}  // namespace

void FecProbe::offer(const SweptNode& n, uint8_t port, Lid lid, PmaReading& into) {
    if (!advertises_ext_speeds(n, port)) return;
    const PmaModel model = n.pma_model();
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
        const PmaModel model = entry.first;  // captured below (a structured binding cannot be)
        const PortRef probe = entry.second;
        if (!readings[probe].ext_speeds) continue;  // not supported by this model
        std::vector<Candidate>& ports = rest_[model];
        for (const Candidate& c : ports)
            submit_ext_speeds(ctx_.engine, ctx_.nodes.at(c.ref.node), c.ref.port, c.lid,
                              readings[c.ref]);
        const SweptNode& first = ctx_.nodes.at(probe.node);
        ports.push_back(Candidate{probe, first.lid(probe.port)});  // for its FEC mode
        // PortInfoExtended only where the PMA has RS-FEC counters, as perfquery asks.
        const mad::Request cpi{
            mad::kClassPerf, mad::kAttrClassPortInfo, 0, {{}, first.lid(probe.port)}, 0};
        ctx_.engine.submit_optional(cpi,
                                    [this, model](const MadResult& r) {
                                        if (!r.ok()) return;
                                        class_cap_[model] =
                                            pma_class_capability_mask(mad::pma_data(r.reply));
                                        if (class_cap_[model] & kPmaCapRsFecCounters)
                                            ask_fec_modes(model);
                                    },
                                    {MadEngine::key_of(first.path)});
        queued = true;
    }
    return queued;
}

void FecProbe::ask_fec_modes(const PmaModel& model) {
    for (const Candidate& c : rest_[model]) {
        const SweptNode& n = ctx_.nodes.at(c.ref.node);
        if ((n.capability_mask2(c.ref.port) & kCap2IsPortInfoExtendedSupported) == 0) continue;
        ctx_.engine.submit_optional(mad::smp_get(mad::kAttrPortInfoExtended, c.ref.port, n.path),
                                    [this, ref = c.ref](const MadResult& r) {
                                        if (!r.ok()) return;
                                        fec_mode_read_.insert(ref);
                                        if (port_info_ext_rs_fec_active(mad::smp_data(r.reply)))
                                            rs_fec_active_.insert(ref);
                                    },
                                    {MadEngine::key_of(n.path)});
    }
}

FecLayout FecProbe::layout_of(PortRef ref) const {
    const SweptNode& n = ctx_.nodes.at(ref.node);
    auto cap = class_cap_.find(n.pma_model());
    if (cap == class_cap_.end()) return FecLayout::None;  // unknown: not guessed
    if ((cap->second & kPmaCapRsFecCounters) == 0) return FecLayout::Original;
    // As perfquery: without PortInfoExtended the port is read in the original layout.
    if ((n.capability_mask2(ref.port) & kCap2IsPortInfoExtendedSupported) == 0)
        return FecLayout::Original;
    if (!fec_mode_read_.count(ref)) return FecLayout::None;  // its FEC mode went unread
    return rs_fec_active_.count(ref) ? FecLayout::RsFec : FecLayout::Original;
}

void FecProbe::decide_layouts(std::map<PortRef, PmaReading>& readings) const {
    for (auto& [ref, r] : readings) {
        if (!r.ext_speeds) continue;
        r.fec = layout_of(ref);
        // A layout not known is not guessed: an RS-FEC reply read in the
        // original layout would show its uncorrectable blocks as zero.
        if (r.fec == FecLayout::None) r.ext_speeds.reset();
    }
}

}  // namespace fabscope
