#pragma once
// Topology discovery through libibnetdisc (the library behind ibnetdiscover),
// and import of `ibnetdiscover --cache` files.

#include <string>

#include "model/snapshot.h"
#include "util/result.h"

namespace fabscope {

struct IbnetdiscOptions {
    std::string ca;           ///< -C; "" = first active CA
    int ca_port = 0;          ///< -P; 0 = first active port
    unsigned timeout_ms = 0;  ///< -t; 0 = library default (200 ms)
    unsigned retries = 0;     ///< 0 = library default (3)
    /// SMPs in flight. 16 is where discovery stops getting faster on the
    /// 648- and 2,048-host labs (bench/discover-vs-ibnetdiscover.sh); the
    /// library's own default is 2. OpenSM keeps 4 on the wire by default.
    unsigned max_smps = 16;
    unsigned max_hops = 0;  ///< 0 = unlimited
    bool verbose = false;   ///< pass the library's own messages through
};

/// Discovers the fabric live. Device and permission problems come back as
/// kExitCannotRun errors; library chatter is kept off stderr unless verbose.
Result<Snapshot> discover_with_ibnetdisc(const IbnetdiscOptions& opts);

/// Reads a file written by `ibnetdiscover --cache FILE`.
Result<Snapshot> import_ibnetdiscover_cache(const std::string& path);

}  // namespace fabscope
