#pragma once
// How a mesh rank or a perf serve agent opens its device: by name ("" = the
// first) and port (0 = the first active); IbvDevice's in production
// (open_ibv_device), fakes in tests.

#include <functional>
#include <memory>
#include <string>

#include "rdma/verbs_device.h"
#include "util/result.h"

namespace fabscope::perf {

using OpenDevice =
    std::function<Result<std::unique_ptr<VerbsDevice>>(const std::string& name, int port)>;

}  // namespace fabscope::perf
