#include "exporter/metrics_state.h"

namespace fabscope {

MetricsState::MetricsState(std::string version, uint8_t port_metrics)
    : version_(std::move(version)), port_metrics_(port_metrics) {
    std::lock_guard lock(mu_);
    render_locked();
}

void MetricsState::publish(std::shared_ptr<const SweepView> sweep) {
    std::lock_guard lock(mu_);
    last_ = std::move(sweep);
    ++counts_.sweeps;
    counts_.last_ok = true;
    render_locked();
}

void MetricsState::publish_failure() {
    std::lock_guard lock(mu_);
    ++counts_.sweeps;
    ++counts_.failures;
    counts_.last_ok = false;
    render_locked();
}

std::shared_ptr<const std::string> MetricsState::metrics() const {
    std::lock_guard lock(mu_);
    return text_;
}

ExporterCounts MetricsState::counts() const {
    std::lock_guard lock(mu_);
    return counts_;
}

void MetricsState::render_locked() {
    // Rendered here, once per sweep, so a scrape only copies a pointer.
    PromInput in;
    if (last_) {
        in.fabric = &last_->fabric;
        in.findings = &last_->findings;
        in.complete = last_->complete;
        in.sm_read = last_->sm_read;
        in.sweep_duration_s = last_->duration_s;
        in.sweep_finished_unix_s = last_->finished_unix_s;
    }
    in.exporter = counts_;
    in.version = version_;
    in.port_metrics = port_metrics_;
    text_ = std::make_shared<const std::string>(render_prometheus(in));
}

}  // namespace fabscope
