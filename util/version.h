#pragma once

namespace fabscope {

/// The version CMake configured (project(fabscope VERSION ...)).
const char* version();

}  // namespace fabscope
