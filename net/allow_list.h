#pragma once
// Which clients `perf serve` answers: networks given as ADDR or ADDR/CIDR,
// IPv4 or IPv6. By default only loopback: a server must be told which
// networks to serve.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope::perf {

class AllowList {
  public:
    /// 127.0.0.0/8 and ::1.
    static AllowList loopback();
    /// Adds "10.0.0.0/24", "10.0.0.5", "fd00::/8". Errors (code 2) name the entry.
    Status add(const std::string& cidr);
    /// `ip` is numeric ("10.0.0.7", "::1", "::ffff:10.0.0.7").
    bool allows(const std::string& ip) const;
    bool empty() const { return nets_.empty(); }
    /// "127.0.0.0/8, ::1/128" as given.
    std::string describe() const;

  private:
    struct Net {
        std::array<uint8_t, 16> addr{};  ///< IPv4 as ::ffff:a.b.c.d
        int prefix = 128;
        std::string text;
    };
    std::vector<Net> nets_;
};

}  // namespace fabscope::perf
