#include "discover/pma_reading.h"

#include "discover/pma_decode.h"

namespace fabscope {

std::optional<PortCounters> PmaReading::counters() const {
    if (!base) return std::nullopt;
    PortCounters pc = decode_port_counters(mad::pma_data(*base));
    if (extended) merge_port_counters_extended(pc, mad::pma_data(*extended));
    if (rcv_details) merge_rcv_error_details(pc, mad::pma_data(*rcv_details));
    if (xmit_details) merge_xmit_discard_details(pc, mad::pma_data(*xmit_details));
    if (ext_speeds) merge_ext_speeds_counters(pc, mad::pma_data(*ext_speeds), fec);
    pc.read_at_ms = read_at_ms;
    return pc;
}

std::optional<VlXmitWait> PmaReading::vl_waits() const {
    if (!base || !vl_xmit_wait) return std::nullopt;
    return decode_vl_xmit_wait(mad::pma_data(*vl_xmit_wait));
}

namespace {

/// Asks for the breakdown of the totals PortCounters shows above zero.
void submit_details(MadEngine& engine, const mad::Request& base, PmaReading& into,
                    const std::vector<std::string>& also_depends_on) {
    const PortCounters pc = decode_port_counters(mad::pma_data(*into.base));
    if (pc.get(Counter::PortRcvErrors).value_or(0) > 0) {
        mad::Request rcv = base;
        rcv.attr_id = mad::kAttrPortRcvErrorDetails;
        engine.submit_optional(
            rcv,
            [&into](const MadResult& r) {
                if (r.ok()) into.rcv_details = r.reply;
            },
            also_depends_on);
    }
    if (pc.get(Counter::PortXmitDiscards).value_or(0) > 0) {
        mad::Request xmit = base;
        xmit.attr_id = mad::kAttrPortXmitDiscardDetails;
        engine.submit_optional(
            xmit,
            [&into](const MadResult& r) {
                if (r.ok()) into.xmit_details = r.reply;
            },
            also_depends_on);
    }
}

}  // namespace

void submit_pma_reading(MadEngine& engine, Lid lid, uint8_t port, const PmaReadPlan& plan,
                        PmaReading& into, std::function<void(const MadResult&)> on_failure,
                        const std::vector<std::string>& also_depends_on) {
    const mad::Request base{mad::kClassPerf, mad::kAttrPortCounters, 0, {{}, lid}, port};
    engine.submit(
        base,
        [&into, &engine, base, details = plan.details, also_depends_on,
         on_failure = std::move(on_failure)](const MadResult& r) {
            if (r.outcome == MadResult::Outcome::Cancelled) return;
            if (!r.ok()) {
                if (on_failure) on_failure(r);
                return;
            }
            into.base = r.reply;
            into.read_at_ms = engine.clock().unix_ms();
            if (details) submit_details(engine, base, into, also_depends_on);
        },
        also_depends_on);
    if (plan.extended) {
        mad::Request ext = base;
        ext.attr_id = mad::kAttrPortCountersExtended;
        engine.submit(
            ext,
            [&into](const MadResult& r) {
                if (r.ok()) into.extended = r.reply;  // else the 32-bit counters stand
            },
            also_depends_on);
    }
    if (plan.fec != FecLayout::None) {
        mad::Request fec = base;
        fec.attr_id = mad::kAttrPortExtendedSpeedsCounters;
        into.fec = plan.fec;
        engine.submit_optional(
            fec,
            [&into](const MadResult& r) {
                if (r.ok()) into.ext_speeds = r.reply;
            },
            also_depends_on);
    }
    if (plan.per_vl) {
        mad::Request vl = base;
        vl.attr_id = mad::kAttrPortVLXmitWaitCounters;
        engine.submit_optional(
            vl,
            [&into](const MadResult& r) {
                if (r.ok())
                    into.vl_xmit_wait = r.reply;
                else if (r.outcome != MadResult::Outcome::Cancelled)
                    into.per_vl_unsupported = true;
            },
            also_depends_on);
    }
}

}  // namespace fabscope
