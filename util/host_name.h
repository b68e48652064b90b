#pragma once
// This host's name, as reports, findings and Slurm know it.

#include <string>

namespace fabscope {

/// gethostname(2); "" when it fails or is empty. Callers that need a label
/// whatever happens say which one (`fabscope congestion`: "localhost").
std::string host_name();

}  // namespace fabscope
