#pragma once
// Writing the files people name, without being turned against them: the
// text goes to a new file of a random name created beside the target
// (O_EXCL, so nothing planted there is followed), is synced, takes the
// target's mode, and replaces the target by rename. Only a regular file is
// replaced; a symlink to one is followed (the file it points at is replaced,
// the link stays); anything else (a device, a FIFO, a directory, a dangling
// link) and a target we may not write are refused, code 2.

#include <functional>
#include <ostream>
#include <string>

#include "util/result.h"

namespace fabscope {

Status replace_file(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace fabscope
