#pragma once
// The text nccl-tests' *_perf programs print (all_reduce_perf first), read
// as fabscope's own results are: per message size, out-of-place and in-place
// time, algorithm and bus bandwidth and the #wrong column; the ranks and
// their hosts; the closing "Out of bounds values" and "Avg bus bandwidth".
// Bus bandwidth is nccl-tests' (PERFORMANCE.md): algbw times 2(n-1)/n for an
// all-reduce, so the figures compare with the field's. GB/s are 1e9 bytes/s.
//
// Lines that are neither the header, a rank, a data row nor the summary
// (NCCL INFO logs, a launcher's words) are skipped; a row that looks like
// data (a size-like first field, or the header's columns with numbers where
// the times are) and cannot be read is an error naming its line, and so is
// a number that is not finite (nan, inf) anywhere fabscope reads one. Bounded: kMaxBenchBytes,
// kMaxBenchRows rows, kMaxBenchRanks ranks, lines of kMaxBenchLine bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace fabscope {

inline constexpr uint64_t kMaxBenchBytes = uint64_t{16} << 20;
inline constexpr size_t kMaxBenchRows = 10000;
inline constexpr size_t kMaxBenchRanks = 65536;
inline constexpr size_t kMaxBenchLine = 4096;

/// One half of a row: out-of-place or in-place.
struct CollectiveTiming {
    double time_us = 0;
    double algbw_gbps = 0;
    double busbw_gbps = 0;
    std::optional<uint64_t> wrong;  ///< absent when not checked ("N/A", -c 0)
};

struct CollectiveRow {
    uint64_t size = 0;   ///< bytes
    uint64_t count = 0;  ///< elements
    std::string type;    ///< "float"
    std::string redop;   ///< "sum", "none"
    int64_t root = -1;
    std::optional<CollectiveTiming> out_of_place;
    std::optional<CollectiveTiming> in_place;
    int line = 0;
};

struct CollectiveRank {
    int rank = 0;
    std::string host;
    std::string device;  ///< "NVIDIA A100-SXM4-80GB"
};

struct CollectiveBench {
    std::string source;      ///< the file it was read from
    std::string collective;  ///< "all_reduce", "all_gather", ... ("" if it cannot be told)
    std::string settings;    ///< the "# nThread ..." line, without the '#'
    std::vector<CollectiveRank> ranks;
    std::vector<CollectiveRow> rows;
    std::optional<uint64_t> out_of_bounds;  ///< "# Out of bounds values : N"
    /// That line said anything but "0 OK" (a count, FAILED, no count at all).
    bool out_of_bounds_failed = false;
    std::string out_of_bounds_said;        ///< what followed its ':' ("3 FAILED"), at most 64 bytes
    std::optional<double> avg_busbw_gbps;  ///< "# Avg bus bandwidth : X"

    /// Elements wrong over every row and both halves.
    uint64_t wrong() const;
    /// The row of the largest message (where bus bandwidth has plateaued).
    const CollectiveRow* largest() const;
};

/// Whether `text` is nccl-tests output (its "# nThread" header or its column
/// header), so a report input is read as one instead of as JSON.
bool looks_like_nccl_tests(std::string_view text);

/// Parses nccl-tests output; `source` names the file in errors (code 2) and
/// tells the collective when the rows cannot ("all_gather_perf.txt").
Result<CollectiveBench> parse_nccl_tests(std::string_view text, const std::string& source);

/// "all_reduce over 16 ranks on 2 hosts".
std::string collective_title(const CollectiveBench& b);

}  // namespace fabscope
