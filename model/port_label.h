#pragma once
// One shape for "which port" in every report: the node's name, its GUID,
// the port number and the LID that reaches it. JSON reports write it as
// {"node", "node_guid", "port", "lid"}; the TUI and text reports format the
// same struct, so no front end reads it back from JSON.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "model/fabric.h"

namespace fabscope {

struct PortLabel {
    std::string node;  ///< the node description ("" when the node is not in the fabric)
    Guid node_guid = 0;
    uint8_t port = 0;
    Lid lid =
        0;  ///< the port's (a switch's ports carry port 0's); the node's if the port was not read
};

PortLabel port_label(const Fabric& f, PortRef ref);

/// {"node": "leaf01", "node_guid": "0x…", "port": 19, "lid": 5}
nlohmann::json to_json(const PortLabel& l);
/// "leaf01[19]  0x0002c90300000001  LID 5" (the node's GUID when it has no name).
std::string to_text(const PortLabel& l);
/// "leaf03[2]", or the node's GUID in place of a name it does not have.
std::string label_name(const PortLabel& l);

/// A port as a finding names it: "leaf01[19] (link to spine02[3])", or the
/// port alone when it has no link.
std::string describe_with_link(const Fabric& f, PortRef ref);
/// The ports a finding about `ref` is about: the port and, if linked, its peer.
std::vector<PortRef> port_and_peer(const Fabric& f, PortRef ref);

}  // namespace fabscope
