#include "ranks/protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>

namespace fabscope::perf {
namespace {
using json = nlohmann::json;
}  // namespace

std::optional<json> parse_message(const std::optional<std::string>& m) {
    if (!m) return std::nullopt;
    json j = json::parse(*m, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
}

std::vector<MeshRank> ranks_from_hellos(const MeshComm::Messages& hellos, Millis start_wait,
                                        std::vector<char>& skip,
                                        std::vector<MeshFinding>& findings) {
    std::vector<MeshRank> ranks;
    for (size_t i = 0; i < hellos.size(); ++i) {
        const int r = static_cast<int>(i);
        auto j = parse_message(hellos[i]);
        MeshRank mr;
        std::string unreadable;
        if (j) {
            try {
                mr = rank_from_json(*j);
            } catch (const std::exception& e) {
                unreadable = e.what();
            }
        }
        mr.rank = r;
        if (!unreadable.empty()) {
            mr = MeshRank{};
            mr.rank = r;
            mr.gone = true;
            skip[i] = 1;
            findings.push_back(
                {"rank-gone", r, -1,
                 fmt::format("rank {} said hello in a form this fabscope cannot read ({}): is "
                             "every rank the same fabscope?",
                             r, unreadable)});
        } else if (!j) {
            mr.gone = true;
            skip[i] = 1;
            findings.push_back(
                {"rank-gone", r, -1,
                 fmt::format("rank {} did not start within {}", r, format_duration(start_wait))});
        } else if (!mr.error.empty()) {
            findings.push_back(
                {"rank-unavailable", r, -1,
                 fmt::format("rank {} ({}) takes no part: {}", r, mr.host, mr.error)});
        }
        ranks.push_back(mr);
    }
    return ranks;
}

RankRun::RankRun(MeshComm& comm, RankTags tags, std::vector<MeshRank>& ranks,
                 std::vector<MeshFinding>& findings)
    : comm_(comm),
      tags_(tags),
      ranks_(ranks),
      findings_(findings),
      skip_(static_cast<size_t>(comm.size()), 0),
      gone_(static_cast<size_t>(comm.size()), 0) {}

bool RankRun::gone(int r) const {
    return r >= 0 && static_cast<size_t>(r) < gone_.size() && gone_[static_cast<size_t>(r)];
}

bool RankRun::any_gone() const {
    return std::count(gone_.begin(), gone_.end(), 1) > 0;
}

int RankRun::step_tag(size_t step, int kind) const {
    return tags_.steps + static_cast<int>(step % 100000) * 4 + kind;
}

void RankRun::hello(const MeshRank& self, MeshDeadline by, Millis waited) {
    auto hellos = comm_.gather(tags_.hello, rank_json(self).dump(), skip_, by, nullptr);
    if (root()) ranks_ = ranks_from_hellos(hellos, waited, skip_, findings_);
}

std::optional<json> RankRun::plan(const json& plan, MeshDeadline by, Millis waited,
                                  std::vector<MeshRank>& ranks, RankOutcome& out, bool* aborted) {
    auto got = parse_message(comm_.broadcast(tags_.plan, root() ? plan.dump() : "", skip_, by));
    if (!got) {
        out.error = fmt::format("rank 0 sent no plan within {}", format_duration(waited));
        out.lost_root = true;
        return std::nullopt;
    }
    try {
        ranks = ranks_from_json(got->at("ranks"));
    } catch (const std::exception& e) {
        out.error = std::string("rank 0 sent a bad plan: ") + e.what();
        out.lost_root = true;
        return std::nullopt;
    }
    if (got->contains("abort")) {
        const json& why = (*got)["abort"];
        out.error = "the run cannot start: " +
                    (why.is_string() ? why.get<std::string>() : std::string("rank 0 said so"));
        if (aborted) *aborted = true;
        return std::nullopt;
    }
    return got;
}

bool RankRun::take_plan(const nlohmann::json& plan,
                        const std::function<void(const nlohmann::json&)>& read,
                        const MeshRank& self, RankOutcome& out) {
    try {
        read(plan);
    } catch (const std::exception& e) {
        out.error = std::string("rank 0 sent a bad plan: ") + e.what();
        out.lost_root = true;
        return false;
    }
    if (root()) {
        skip_unready();
    } else if (!self.error.empty()) {
        out.error = self.error;
        return false;
    }
    return true;
}

void RankRun::skip_unready() {
    for (const MeshRank& r : ranks_) {
        if (r.rank >= 0 && static_cast<size_t>(r.rank) < skip_.size() && !r.error.empty())
            skip_[static_cast<size_t>(r.rank)] = 1;
    }
}

void RankRun::went_silent(int r, const Step& s) {
    skip_[static_cast<size_t>(r)] = 1;
    if (static_cast<size_t>(r) >= ranks_.size()) return;
    MeshRank& mr = ranks_[static_cast<size_t>(r)];
    mr.gone = true;
    mr.gone_round = s.round;
    findings_.push_back({"rank-gone", r, s.round,
                         fmt::format("{} stopped reporting in {}: it died or hangs{}",
                                     who(ranks_, r), s.where, s.gone_note)});
}

std::optional<json> RankRun::step(const Step& s, const json& report, const Absorb& absorb,
                                  const Answer& answer, RankOutcome& out) {
    auto got = comm_.gather(step_tag(s.number, 0), report.dump(), skip_, s.report_by, s.give_up);
    std::string go_msg;
    if (root()) {
        for (int r = 0; r < size(); ++r) {
            if (skip_[static_cast<size_t>(r)]) continue;
            auto j = parse_message(got[static_cast<size_t>(r)]);
            if (!j) {
                went_silent(r, s);
            } else if (absorb) {
                absorb(r, *j);
            }
        }
        json dead = json::array();
        for (const MeshRank& r : ranks_) {
            if (r.gone) dead.push_back(r.rank);
        }
        json go = {{"gone", dead}, {"stop", false}};
        if (answer) answer(go);
        go_msg = go.dump();
    }
    auto go = parse_message(comm_.broadcast(step_tag(s.number, 1), go_msg, skip_, s.go_by));
    if (!go) {
        out.error = fmt::format("rank 0 did not answer within {}: the run ended without it",
                                format_duration(s.go_waited));
        out.lost_root = true;
        return std::nullopt;
    }
    if (auto g = go->find("gone"); g != go->end() && g->is_array()) {
        for (const json& r : *g) {
            if (r.is_number_integer() && gone_.size() > r.get<size_t>()) gone_[r.get<size_t>()] = 1;
        }
    }
    out.peers_gone = any_gone();
    return go;
}

}  // namespace fabscope::perf
