#pragma once
// The one protocol of every run with several ranks (`mesh run` and its
// incast pattern, under MPI, Slurm or agents), over a MeshComm:
//
//   hello:  every rank tells rank 0 who it is (ranks/rank.h); a rank silent
//           by the deadline is gone, one without a device takes no part
//   plan:   rank 0 sends every rank the plan, or why the run cannot start
//   steps:  every rank reports; rank 0 reads the reports (a rank that sent
//           none by the deadline is gone, a finding, and skipped from then
//           on) and answers "go" with the ranks gone and whether to stop
//
// Every wait has a deadline, so a rank that dies or hangs delays the others
// by at most that long. What a run does between the messages (its plan, its
// flows) is the caller's; this file owns the messages and who is gone.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ranks/comm.h"
#include "ranks/rank.h"
#include "util/duration.h"

namespace fabscope::perf {

/// A message that is not a JSON object counts as not received.
std::optional<nlohmann::json> parse_message(const std::optional<std::string>& m);

/// Rank 0's view of everyone's hello: a rank that sent none within
/// `start_wait` is gone (and skipped from then on), one that could not open
/// its device takes no part; each is a finding.
std::vector<MeshRank> ranks_from_hellos(const MeshComm::Messages& hellos, Millis start_wait,
                                        std::vector<char>& skip,
                                        std::vector<MeshFinding>& findings);

/// The message tags of one kind of run: the hello, the plan, and each step's
/// from `steps` on (four a step, distinct per step, so a message that comes
/// a step late is never taken for the current one).
struct RankTags {
    int hello = 1;
    int plan = 2;
    int steps = 16;
};

/// How a rank's part of a run ended, whatever the run.
struct RankOutcome {
    std::string error;        ///< this rank could not take part, lost rank 0, or "interrupted"
    bool lost_root = false;   ///< rank 0 did not answer (the error says when)
    bool peers_gone = false;  ///< rank 0 named ranks gone
};

class RankRun {
  public:
    /// `ranks` and `findings` are rank 0's (the run's data): hello fills the
    /// ranks, and a rank that goes silent is marked gone there and named.
    RankRun(MeshComm& comm, RankTags tags, std::vector<MeshRank>& ranks,
            std::vector<MeshFinding>& findings);

    int me() const { return comm_.rank(); }
    int size() const { return comm_.size(); }
    bool root() const { return comm_.rank() == 0; }
    MeshComm& comm() { return comm_; }
    /// Rank 0: the ranks left out of the exchanges (gone, or taking no part).
    const std::vector<char>& skip() const { return skip_; }
    /// Whether rank 0 has said `r` is gone.
    bool gone(int r) const;
    bool any_gone() const;
    /// The tag of `kind` (0..3) of step `step`.
    int step_tag(size_t step, int kind) const;

    /// Everyone sends `self`; rank 0 fills the ranks from the hellos that came
    /// by `by` (`waited`: how long that is, for the findings).
    void hello(const MeshRank& self, MeshDeadline by, Millis waited);

    /// Rank 0 sends `plan` (with "ranks"; "abort": why the run cannot
    /// start); every rank returns it as received, its "ranks" in `ranks`.
    /// Sets `out` when it does not come by `by`, is not a plan, or says abort
    /// (then `aborted`).
    std::optional<nlohmann::json> plan(const nlohmann::json& plan, MeshDeadline by, Millis waited,
                                       std::vector<MeshRank>& ranks, RankOutcome& out,
                                       bool* aborted = nullptr);

    /// Rank 0, once the plan is out: ranks that could not open their device
    /// take no part in the steps.
    void skip_unready();

    /// A plan received, taken up by every rank: `read` takes what the
    /// pattern needs from it (a plan it cannot read counts as rank 0 lost);
    /// then rank 0 leaves out the ranks not ready (skip_unready), and a rank
    /// whose own device failed (`self.error`) stops. False when this rank's
    /// run ends here, with `out` saying why.
    bool take_plan(const nlohmann::json& plan,
                   const std::function<void(const nlohmann::json&)>& read, const MeshRank& self,
                   RankOutcome& out);

    struct Step {
        size_t number = 0;       ///< the step's tags
        int round = -1;          ///< a gone rank's gone_round and finding (-1: none)
        std::string where;       ///< "round 3", "the idle phase": where a rank went silent
        std::string gone_note;   ///< appended to that finding ("; the run went on without it")
        MeshDeadline report_by;  ///< the reports
        MeshDeadline go_by;      ///< rank 0's answer
        Millis go_waited{0};     ///< how long that is from the step's start (for the error)
        /// Rank 0 stops waiting for the missing reports once this says so.
        std::function<bool(const MeshComm::Messages& so_far)> give_up;
    };
    /// Rank 0: one rank's report.
    using Absorb = std::function<void(int rank, const nlohmann::json& report)>;
    /// Rank 0: after the reports, what its "go" says besides the ranks gone
    /// ({"gone": [...], "stop": false}): whether to stop, and more fields.
    using Answer = std::function<void(nlohmann::json& go)>;

    /// One step: `report` to rank 0, which gives each report that came to
    /// `absorb`, names the silent ranks gone, and answers every rank. Returns
    /// the answer; nullopt when rank 0 did not answer by `go_by` (`out` says so).
    std::optional<nlohmann::json> step(const Step& s, const nlohmann::json& report,
                                       const Absorb& absorb, const Answer& answer,
                                       RankOutcome& out);

  private:
    void went_silent(int r, const Step& s);

    MeshComm& comm_;
    RankTags tags_;
    std::vector<MeshRank>& ranks_;
    std::vector<MeshFinding>& findings_;
    std::vector<char> skip_;
    std::vector<char> gone_;
};

}  // namespace fabscope::perf
