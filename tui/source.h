#pragma once
// Where the TUI's readings come from: the live fabric (a sweep with
// counters, through the LiveFabric seam) or snapshot files one after
// another. Every read takes a StopToken, so quitting or Ctrl-C ends a sweep
// in flight instead of leaving a thread behind.

#include <memory>
#include <string>
#include <vector>

#include "tui/tui_data.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope::tui {

class FabricSource {
  public:
    virtual ~FabricSource() = default;
    /// One reading. Bounded in time (a live source has its MAD deadlines),
    /// and shorter once `stop` is requested.
    virtual Result<Reading> read(const StopToken& stop) = 0;
    /// False once a file source has given every file.
    virtual bool more() const = 0;
};

/// The live fabric, as the TUI needs it: one sweep with counters. The CLI
/// adapts discover's session to it in one place.
class LiveFabric {
  public:
    virtual ~LiveFabric() = default;
    /// Sweeps the fabric and reads the counters of every active port; gives
    /// up what is left once `stop` is requested.
    virtual Result<Reading> sweep(const StopToken& stop) = 0;
    /// "mlx5_0 port 1": where the sweeps start.
    virtual std::string name() const = 0;
};

/// Sweeps, one per read, for as long as the TUI runs.
class LiveSource : public FabricSource {
  public:
    explicit LiveSource(std::unique_ptr<LiveFabric> fabric) : fabric_(std::move(fabric)) {}
    Result<Reading> read(const StopToken& stop) override;
    bool more() const override { return true; }

  private:
    std::unique_ptr<LiveFabric> fabric_;
};

/// Snapshot files, oldest first, one per read.
class FileSource : public FabricSource {
  public:
    explicit FileSource(std::vector<Snapshot> snaps) : snaps_(std::move(snaps)) {}
    Result<Reading> read(const StopToken& stop) override;
    bool more() const override { return next_ < snaps_.size(); }

  private:
    std::vector<Snapshot> snaps_;
    size_t next_ = 0;
};

}  // namespace fabscope::tui
