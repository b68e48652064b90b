#pragma once
// lldpd's neighbours through its client library, liblldpctl: the only part
// of fabscope that talks to lldpd. What it returns is plain values
// (host/lldp_neighbour.h converts them). Built when CMake finds liblldpctl
// (FABSCOPE_HAVE_LLDPCTL).

#include <string>
#include <vector>

#include "host/lldp_neighbour.h"
#include "util/result.h"

namespace fabscope::host {

/// lldpd's default control socket ("/run/lldpd.socket" on Debian).
std::string lldpd_default_socket();

/// Every neighbour the lldpd listening on `socket` knows, on every interface
/// ("" = lldpd's default socket). An error (exit 3) names the socket when
/// lldpd is not there or does not answer as lldpd.
Result<std::vector<LldpRaw>> read_lldpd_neighbours(const std::string& socket);

}  // namespace fabscope::host
