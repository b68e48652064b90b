#pragma once
// Captures what C libraries (libibnetdisc, libibumad, the simulator's preload
// library) print on stderr during a call, so the tool can report one clear
// line instead and show the library's own words only with --verbose.

#include <string>

namespace fabscope {

class StderrCapture {
  public:
    StderrCapture();
    ~StderrCapture();
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    /// Stops capturing (idempotent) and returns everything captured.
    std::string finish();

  private:
    int saved_fd_ = -1;
    int file_fd_ = -1;
    std::string text_;
};

}  // namespace fabscope
