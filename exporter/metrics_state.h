#pragma once
// What the exporter serves: the metrics of the last complete sweep, rendered
// once when the sweep is published and handed to every scrape as an
// immutable string. The sweeper publishes under a mutex; a scrape takes the
// current pointer and never waits for, or starts, a sweep.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/finding.h"
#include "reports/prometheus_text.h"

namespace fabscope {

/// One good sweep, as the exporter keeps it.
struct SweepView {
    Fabric fabric;
    std::vector<Finding> findings;
    bool complete = true;
    bool sm_read = false;
    double duration_s = 0;
    double finished_unix_s = 0;
};

class MetricsState {
  public:
    explicit MetricsState(std::string version, uint8_t port_metrics = kDefaultPortMetrics);

    /// A sweep ended well: it becomes what every scrape sees.
    void publish(std::shared_ptr<const SweepView> sweep);
    /// A sweep failed: counted, and the last good one is still served.
    void publish_failure();

    /// The text of the last publication (never blocks on a sweep).
    std::shared_ptr<const std::string> metrics() const;
    ExporterCounts counts() const;

  private:
    void render_locked();

    mutable std::mutex mu_;
    std::string version_;
    uint8_t port_metrics_;
    ExporterCounts counts_;
    std::shared_ptr<const SweepView> last_;
    std::shared_ptr<const std::string> text_;
};

}  // namespace fabscope
