#pragma once
// Import of `ibnetdiscover --cache` files through libibnetdisc (the library
// behind ibnetdiscover). Live discovery is fabscope's own sweep (sweep.h):
// one discovery path, one set of deadlines.

#include <string>

#include "model/snapshot.h"
#include "util/result.h"

namespace fabscope {

/// Reads a file written by `ibnetdiscover --cache FILE`.
Result<Snapshot> import_ibnetdiscover_cache(const std::string& path);

}  // namespace fabscope
