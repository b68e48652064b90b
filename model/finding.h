#pragma once
// A finding: something wrong (or worth a look) with the fabric, where it is,
// and the numbers that prove it. Checks produce them; reports, the TUI and
// exit codes consume them.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/fabric.h"

namespace fabscope {

/// Info: worth knowing, never fails a run. Warning: degraded or suspicious.
/// Error: broken. Whether a finding fails a run is the thresholds' call.
enum class Severity : uint8_t { Info, Warning, Error };

struct Finding {
    std::string kind;  ///< stable identifier, e.g. "link_below_peers"
    Severity severity = Severity::Warning;
    std::string summary;         ///< one line for people, naming the ports
    std::vector<PortRef> where;  ///< the ports involved (both ends of a link)
    nlohmann::json evidence = nlohmann::json::object();
};

/// A finding of `kind` at `where` (the ports involved; none for a host or a
/// run), with the numbers that prove it.
Finding make_finding(std::string kind, Severity severity, std::string summary,
                     std::vector<PortRef> where = {},
                     nlohmann::json evidence = nlohmann::json::object());

std::string_view name(Severity s);  ///< "info", "warning", "error"
/// The severity `name` gives that name; nothing for any other text.
std::optional<Severity> severity_named(std::string_view s);
/// The same from a JSON value read from a file or a peer: anything but one of
/// the three names throws json_io's error naming the value.
Severity severity_from_json(const nlohmann::json& v);

/// JSON for a finding; `where` entries carry node name, GUID, port and LID.
nlohmann::json finding_to_json(const Fabric& f, const Finding& finding);
nlohmann::json findings_to_json(const Fabric& f, const std::vector<Finding>& findings);

}  // namespace fabscope
