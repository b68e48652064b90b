#include "formats/collective_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "util/exit_status.h"

namespace fabscope {
namespace {

std::vector<std::string_view> tokens_of(std::string_view line) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
        if (j > i) out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

template <class T>
std::optional<T> number(std::string_view s) {
    T v{};
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

/// nccl-tests prints "nan" or "inf" when a run went wrong (a timer of 0, a
/// bandwidth divided by it); from_chars reads them, and NaN passes every
/// comparison a gate makes, so they are refused wherever a number is read.
bool non_finite(std::string_view s) {
    auto v = number<double>(s);
    return v && !std::isfinite(*v);
}

Error non_finite_error(const std::string& where, std::string_view field, std::string_view what) {
    return make_error(fmt::format("{}: {} \"{}\" is not a finite number (nccl-tests prints nan "
                                  "or inf when its run went wrong)",
                                  where, field, what.substr(0, 32)),
                      kExitUsage);
}

/// Starts as a message size would: a digit, or a sign or a non-finite word
/// that from_chars reads ("-1", "nan", "inf"). Such a first field makes the
/// line a row, readable or not: skipping it would let the gate judge the
/// next size instead.
/// A timestamp ("2026-12-07", "23:00:01") or a tagged line ("[1,0]<stdout>:")
/// is no size: the token is one number as written, with a unit or not
/// ("1024.0", "-8", "1e3", "8K").
bool size_like(std::string_view s) {
    if (non_finite(s)) return true;
    size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    for (size_t k = i + 1; k < s.size(); ++k) {
        const char c = s[k];
        const bool sign_of_exponent =
            (c == '-' || c == '+') && (s[k - 1] == 'e' || s[k - 1] == 'E');
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != ',' &&
            !sign_of_exponent)
            return false;
    }
    return true;
}

/// The columns of the header line, by name, as the rows carry them.
struct Layout {
    std::vector<std::string> prefix;  ///< size, count, type, redop, root (as printed)
    size_t halves = 0;                ///< 1 or 2 groups of time, algbw, busbw, #wrong
    size_t width() const { return prefix.size() + 4 * halves; }
};

Result<Layout> layout_of(const std::vector<std::string_view>& t, const std::string& where) {
    Layout l;
    size_t i = 1;  // past the '#'
    static const std::set<std::string_view> known = {"size", "count", "type", "redop", "root"};
    for (; i < t.size() && t[i] != "time"; ++i) {
        if (!known.count(t[i]))
            return make_error(
                fmt::format("{}: column \"{}\" is not one of nccl-tests'", where, t[i]),
                kExitUsage);
        l.prefix.emplace_back(t[i]);
    }
    if (l.prefix.empty() || l.prefix.front() != "size")
        return make_error(fmt::format("{}: the column header does not start with size", where),
                          kExitUsage);
    for (; i + 3 < t.size() && t[i] == "time"; i += 4) {
        if (t[i + 1] != "algbw" || t[i + 2] != "busbw")
            return make_error(fmt::format("{}: expected time algbw busbw #wrong", where),
                              kExitUsage);
        if (t[i + 3] != "#wrong")
            return make_error(fmt::format("{}: a \"{}\" column where nccl-tests 2.10 and later "
                                          "print #wrong: an older nccl-tests, not read",
                                          where, t[i + 3]),
                              kExitUsage);
        ++l.halves;
    }
    if (l.halves == 0 || l.halves > 2 || i != t.size())
        return make_error(
            fmt::format("{}: expected one or two groups of time algbw busbw #wrong", where),
            kExitUsage);
    return l;
}

/// A line the reader must take as a result row, readable or not: its first
/// field is a size (even a bad one), or it has the header's columns with
/// numbers where the first time, algbw and busbw are. Anything else (NCCL
/// INFO logs, a launcher's words) is skipped.
bool row_like(const std::vector<std::string_view>& t, const Layout& l) {
    if (size_like(t[0])) return true;
    const size_t at = l.prefix.size();
    return t.size() == l.width() && number<double>(t[at]) && number<double>(t[at + 1]) &&
           number<double>(t[at + 2]);
}

/// One half's four fields; nullopt when they are "N/A" (not run).
Result<std::optional<CollectiveTiming>> timing_of(const std::vector<std::string_view>& t, size_t at,
                                                  const std::string& where) {
    if (t[at] == "N/A") return std::optional<CollectiveTiming>{};
    CollectiveTiming x;
    auto time = number<double>(t[at]);
    auto alg = number<double>(t[at + 1]);
    auto bus = number<double>(t[at + 2]);
    static const char* const names[] = {"time", "algbw", "busbw"};
    for (size_t k = 0; k < 3; ++k) {
        if (non_finite(t[at + k])) return non_finite_error(where, names[k], t[at + k]);
    }
    if (!time || !alg || !bus || *time < 0 || *alg < 0 || *bus < 0)
        return make_error(
            fmt::format("{}: time, algbw and busbw must be numbers of 0 or more", where),
            kExitUsage);
    x.time_us = *time;
    x.algbw_gbps = *alg;
    x.busbw_gbps = *bus;
    if (t[at + 3] != "N/A") {
        if (non_finite(t[at + 3])) return non_finite_error(where, "#wrong", t[at + 3]);
        x.wrong = number<uint64_t>(t[at + 3]);
        if (!x.wrong)
            return make_error(fmt::format("{}: #wrong \"{}\" is not a count", where, t[at + 3]),
                              kExitUsage);
    }
    return std::optional<CollectiveTiming>(x);
}

Result<CollectiveRow> row_of(const std::vector<std::string_view>& t, const Layout& l,
                             const std::string& where) {
    if (t.size() != l.width())
        return make_error(
            fmt::format("{}: {} fields where the header has {}", where, t.size(), l.width()),
            kExitUsage);
    CollectiveRow r;
    for (size_t i = 0; i < l.prefix.size(); ++i) {
        const std::string& c = l.prefix[i];
        if (non_finite(t[i])) return non_finite_error(where, c, t[i]);
        bool ok = true;
        if (c == "size") {
            auto v = number<uint64_t>(t[i]);
            ok = v.has_value();
            r.size = v.value_or(0);
        } else if (c == "count") {
            auto v = number<uint64_t>(t[i]);
            ok = v.has_value();
            r.count = v.value_or(0);
        } else if (c == "root") {
            auto v = number<int64_t>(t[i]);
            ok = v.has_value();
            r.root = v.value_or(-1);
        } else {
            (c == "type" ? r.type : r.redop) = std::string(t[i].substr(0, 32));
        }
        if (!ok)
            return make_error(fmt::format("{}: {} \"{}\" is not a number", where, c, t[i]),
                              kExitUsage);
    }
    size_t at = l.prefix.size();
    for (size_t h = 0; h < l.halves; ++h, at += 4) {
        auto x = timing_of(t, at, where);
        if (!x) return x.error();
        (h == 0 ? r.out_of_place : r.in_place) = *x;
    }
    return r;
}

/// "#  Rank  0 Group  0 Pid  12345 on node01 device  0 [0x07] NVIDIA A100".
std::optional<CollectiveRank> rank_of(const std::vector<std::string_view>& t) {
    CollectiveRank r;
    bool have_rank = false;
    for (size_t i = 1; i + 1 < t.size(); ++i) {
        if (t[i] == "Rank" && !have_rank) {
            auto v = number<int>(t[i + 1]);
            if (!v) return std::nullopt;
            r.rank = *v;
            have_rank = true;
        } else if (t[i] == "on" && r.host.empty()) {
            r.host = std::string(t[i + 1].substr(0, 256));
        } else if (t[i].size() > 2 && t[i].front() == '[' && t[i].back() == ']') {
            // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict)
            // on a literal + std::string&& here.
            for (size_t j = i + 1; j < t.size(); ++j) {
                if (!r.device.empty()) r.device += ' ';
                r.device += t[j];
            }
            r.device = r.device.substr(0, 256);
            break;
        }
    }
    if (!have_rank || r.host.empty()) return std::nullopt;
    return r;
}

/// "# Out of bounds values : 0 OK": nccl-tests' own check of every result.
/// Anything but a count of 0 and OK (a count, FAILED, a word it should not
/// print) is its check failing, which the report takes as elements wrong.
Status read_out_of_bounds(const std::vector<std::string_view>& t, const std::string& where,
                          CollectiveBench& b) {
    if (non_finite(t[6])) return non_finite_error(where, "Out of bounds values", t[6]);
    b.out_of_bounds = number<uint64_t>(t[6]);
    std::string said;
    for (size_t i = 6; i < t.size() && said.size() < 64; ++i) {
        if (!said.empty()) said += ' ';
        said += t[i].substr(0, 32);
    }
    b.out_of_bounds_said = said;
    b.out_of_bounds_failed =
        b.out_of_bounds.value_or(1) != 0 || (t.size() > 7 && t[7] != "OK") || t.size() > 8;
    return Ok{};
}

size_t type_bytes(std::string_view type) {
    if (type == "int8" || type == "uint8" || type.starts_with("f8") || type == "fp8") return 1;
    if (type == "half" || type == "bfloat16" || type == "float16") return 2;
    if (type == "float" || type == "int32" || type == "uint32") return 4;
    if (type == "double" || type == "int64" || type == "uint64") return 8;
    return 0;
}

/// From the file's name where it says, else from what the rows' sizes and
/// counts allow; "" when they allow more than one.
std::string collective_of(const CollectiveBench& b) {
    static const char* const names[] = {"reduce_scatter", "all_reduce", "all_gather", "alltoall",
                                        "broadcast",      "sendrecv",   "hypercube",  "scatter",
                                        "gather",         "reduce"};
    const std::string base = b.source.substr(b.source.find_last_of('/') + 1);
    for (const char* n : names) {
        if (base.find(n) != std::string::npos) return n;
    }
    const CollectiveRow* r = b.largest();
    const size_t n = b.ranks.size();
    const size_t bytes = r ? type_bytes(r->type) : 0;
    if (!r || bytes == 0 || r->count == 0) return "";
    const bool reduces = r->redop != "none" && !r->redop.empty();
    if (r->root >= 0) return reduces ? "reduce" : "broadcast";
    if (reduces && r->count * bytes == r->size) return "all_reduce";
    if (reduces && n > 1 && r->count * bytes * n == r->size) return "reduce_scatter";
    return "";
}

}  // namespace

uint64_t CollectiveBench::wrong() const {
    uint64_t n = 0;
    for (const CollectiveRow& r : rows) {
        if (r.out_of_place && r.out_of_place->wrong) n += *r.out_of_place->wrong;
        if (r.in_place && r.in_place->wrong) n += *r.in_place->wrong;
    }
    return n;
}

const CollectiveRow* CollectiveBench::largest() const {
    const CollectiveRow* best = nullptr;
    for (const CollectiveRow& r : rows) {
        if (!best || r.size >= best->size) best = &r;
    }
    return best;
}

bool looks_like_nccl_tests(std::string_view text) {
    // JSON is never nccl-tests' output, whatever its strings hold.
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) return false;
    const std::string_view head = text.substr(0, 64 * 1024);
    return head.find("# nThread ") != std::string_view::npos ||
           (head.find("#       size") != std::string_view::npos &&
            head.find("busbw") != std::string_view::npos);
}

Result<CollectiveBench> parse_nccl_tests(std::string_view text, const std::string& source) {
    if (text.size() > kMaxBenchBytes)
        return make_error(fmt::format("{}: larger than {} bytes", source, kMaxBenchBytes),
                          kExitUsage);
    CollectiveBench b;
    b.source = source;
    std::optional<Layout> layout;
    int line_no = 0;
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        ++line_no;
        const std::string where = fmt::format("{}:{}", source, line_no);
        if (line.size() > kMaxBenchLine)
            return make_error(fmt::format("{}: line longer than {} bytes", where, kMaxBenchLine),
                              kExitUsage);
        const auto t = tokens_of(line);
        if (t.empty()) continue;
        if (t[0] == "#") {
            if (t.size() > 1 && t[1] == "nThread") {
                b.settings = std::string(line.substr(line.find("nThread")));
            } else if (t.size() > 2 && t[1] == "size" && !layout) {
                auto l = layout_of(t, where);
                if (!l) return l.error();
                layout = *l;
            } else if (t.size() > 2 && t[1] == "Rank") {
                if (auto r = rank_of(t)) {
                    if (b.ranks.size() >= kMaxBenchRanks)
                        return make_error(
                            fmt::format("{}: more than {} ranks", where, kMaxBenchRanks),
                            kExitUsage);
                    b.ranks.push_back(std::move(*r));
                }
            } else if (t.size() > 6 && t[1] == "Out" && t[3] == "bounds") {
                if (auto bad = read_out_of_bounds(t, where, b); !bad) return bad.error();
            } else if (t.size() > 5 && t[1] == "Avg" && t[2] == "bus") {
                if (non_finite(t[5])) return non_finite_error(where, "Avg bus bandwidth", t[5]);
                b.avg_busbw_gbps = number<double>(t[5]);
            }
            continue;
        }
        if (!layout || !row_like(t, *layout)) continue;  // a log line, not a row
        auto r = row_of(t, *layout, where);
        if (!r) return r.error();
        if (b.rows.size() >= kMaxBenchRows)
            return make_error(fmt::format("{}: more than {} rows", where, kMaxBenchRows),
                              kExitUsage);
        r->line = line_no;
        b.rows.push_back(std::move(*r));
    }
    if (!layout)
        return make_error(fmt::format("{}: no nccl-tests column header (# size count type ... "
                                      "busbw #wrong)",
                                      source),
                          kExitUsage);
    if (b.rows.empty())
        return make_error(fmt::format("{}: no results under the column header (did the run end "
                                      "before its first size?)",
                                      source),
                          kExitUsage);
    b.collective = collective_of(b);
    return b;
}

std::string collective_title(const CollectiveBench& b) {
    std::set<std::string> hosts;
    for (const CollectiveRank& r : b.ranks) hosts.insert(r.host);
    std::string title = b.collective.empty() ? "collective" : b.collective;
    if (!b.ranks.empty())
        title +=
            fmt::format(" over {} rank{} on {} host{}", b.ranks.size(),
                        b.ranks.size() == 1 ? "" : "s", hosts.size(), hosts.size() == 1 ? "" : "s");
    return title;
}

}  // namespace fabscope
