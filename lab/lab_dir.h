#pragma once
// Where a lab lives, and what in it is the lab's. Lab commands take a name
// (a plain name under the private lab base folder) or a directory; they only
// ever use a directory that is new, empty, or holds this lab's own state, and
// they only remove the files a lab creates (kLabEntries), never anything else.

#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope {

/// A plain name: letters, digits, '.', '_', '-', not starting with '.', at
/// most 64 characters. Anything else (a '/', "..", empty) is a usage error.
Status check_lab_name(const std::string& name);

/// Where labs live: $FABSCOPE_LAB_BASE, else $XDG_RUNTIME_DIR/fabscope-lab,
/// else /tmp/fabscope-lab-UID.
std::string lab_base_dir();

/// Creates the base folder (mode 0700) if missing; refuses one that is a
/// symlink, not owned by this user, or writable by group or others (exit 3).
Status ensure_private_base(const std::string& base);

/// The absolute, normalised directory of a lab: `dir` if given, else the
/// base folder's `name` (checked, and the base made private).
Result<std::string> resolve_lab_dir(const std::string& name, const std::string& dir);

/// True if dir/state.json is a fabscope lab state recorded for this very directory.
bool holds_lab_state(const std::string& dir);

/// The entries a lab creates in its directory (OpenSM's files are all under
/// osm/; the simulator's client library adds sys-PID directories).
const std::vector<std::string>& lab_entries();
bool is_lab_entry(const std::string& filename);

/// How `lab up` may use a directory.
enum class LabDirUse {
    Create,    ///< does not exist: created, and removed again by `lab down`
    UseEmpty,  ///< exists and is empty: used, left in place by `lab down`
    ReuseLab,  ///< holds a stopped lab's state: its files are replaced
};
/// Refuses (exit 2) a directory that exists and holds anything but a lab's own
/// state, or that is not a directory.
Result<LabDirUse> check_lab_dir_for_up(const std::string& dir);

/// Removes the lab's own entries from `dir` (never following a symlink),
/// then `dir` itself if `remove_dir` and it is empty. Returns what was left
/// behind because it is not the lab's.
Result<std::vector<std::string>> remove_lab_files(const std::string& dir, bool remove_dir);

}  // namespace fabscope
