#pragma once
// This host's name, as reports, findings and Slurm know it.

#include <string>
#include <string_view>

namespace fabscope {

/// gethostname(2); "" when it fails or is empty. Callers that need a label
/// whatever happens say which one (`fabscope congestion`: "localhost").
std::string host_name();

/// Whether `s` can be a host name or address as a hosts file gives it: 1 to
/// 253 characters of letters, digits, '-', '.', '_', ':' (and '[' ']' when
/// `brackets`, for "[v6]:port").
bool host_token_ok(std::string_view s, bool brackets = false);

}  // namespace fabscope
