#pragma once
// What a validation found and which checks it made: the result every front
// end (validate, the TUI, the reports) shows. The checks themselves and the
// pipeline that runs them are check/validate.h.

#include <string>
#include <string_view>
#include <vector>

#include "model/finding.h"
#include "model/port_label.h"

namespace fabscope {

/// A check made. Its id and name stay the same from run to run of the same
/// command, whatever the fabric (what a CI server trends a test case by);
/// the detail says what it covered this time.
struct CheckMade {
    std::string id;      ///< "cabling_plan"
    std::string name;    ///< "cabling against the plan"
    std::string detail;  ///< "96 links"; "" when there is nothing to add
    /// "cabling against the plan (96 links)": for people.
    std::string text() const;
};

/// A cable the plan (or the baseline) expects. Each end is named as the plan
/// names it, with the GUID of the node that answers to that name (the
/// planned GUID, or 0, for a node that is missing).
struct ExpectedCable {
    PortLabel a;
    PortLabel b;
};

struct Validation {
    std::vector<Finding> findings;  ///< errors first
    std::vector<CheckMade> checks;  ///< what was checked
    /// The plan's cables (else the baseline's); empty without either.
    std::vector<ExpectedCable> expected;
    bool failed() const;  ///< any warning or error
    size_t count(Severity s) const;
};

/// The id of the check among `made` that a finding of `kind` comes from:
/// cabling kinds to the plan's check (else the baseline's, else the
/// changes'), counter kinds to the rates (else the saturation check), and
/// so on; a kind no check claims (what the sweep could not read) to the
/// first check, the inventory.
std::string check_of(std::string_view kind, const std::vector<CheckMade>& made);

/// Errors first, then warnings, then info; stable within a severity.
void sort_by_severity(std::vector<Finding>& findings);

}  // namespace fabscope
