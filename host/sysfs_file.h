#pragma once
// Reading sysfs attributes under a root that is a parameter ("/" on a live
// host, a fixture tree in tests), within bounds: an attribute is one small
// regular file, so anything larger, a FIFO or a device node is refused, and
// every refusal or unreadable value is recorded as an inventory problem that
// names the file instead of stopping the run.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fabscope::host {

/// A file of the inventory that could not be read or held a bad value.
struct InventoryProblem {
    std::string file;     ///< the full path, under the root
    std::string message;  ///< what was wrong with it
    bool operator==(const InventoryProblem&) const = default;
};

/// The largest attribute read (sysfs attributes are at most one page).
inline constexpr uint64_t kMaxAttrBytes = 4096;

/// Reads attributes relative to a root and collects what went wrong.
class SysfsFiles {
  public:
    explicit SysfsFiles(std::filesystem::path root) : root_(std::move(root)) {}

    const std::filesystem::path& root() const { return root_; }
    /// root / rel (rel may start with '/').
    std::filesystem::path full(const std::filesystem::path& rel) const;

    /// The attribute's text without the trailing newline and blanks. A missing
    /// file is nullopt, recorded as a problem only when `required`; an
    /// unreadable, oversized or non-regular file is always a problem.
    std::optional<std::string> read(const std::filesystem::path& rel, bool required = false);
    /// Records a bad value read from `rel`.
    void bad_value(const std::filesystem::path& rel, const std::string& message);
    /// Names in a directory, sorted; a missing directory is empty (recorded
    /// when `required`).
    std::vector<std::string> list(const std::filesystem::path& rel, bool required = false);
    /// Where a symlink under the root leads, as a path under the root's
    /// sys/devices ("" when it does not resolve inside the root).
    std::filesystem::path resolve(const std::filesystem::path& rel);

    const std::vector<InventoryProblem>& problems() const { return problems_; }
    std::vector<InventoryProblem> take_problems() { return std::move(problems_); }

  private:
    std::filesystem::path root_;
    std::vector<InventoryProblem> problems_;
};

/// Reads at most `max` bytes of a regular file; an error message otherwise.
struct BoundedRead {
    std::optional<std::string> text;
    std::string error;  ///< "" when the file does not exist
    int err_no = 0;
};
BoundedRead read_bounded(const std::filesystem::path& path, uint64_t max);

}  // namespace fabscope::host
