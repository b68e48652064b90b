#pragma once
// The names engineers use for nodes, from a node-name map in ibnetdiscover's
// format (ib-node-name-map(5)): one `GUID "name"` per line, `#` comments.
// Switches often carry a vendor string ("MF0;switch-1a2b:MQM8700/U1") as
// their NodeDescription; the map gives them the rack name instead. Applied
// to a fabric right after it is discovered or loaded, so every command and
// report prints the same names.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "model/fabric.h"
#include "util/result.h"

namespace fabscope {

inline constexpr uint64_t kMaxNodeNameMapBytes = 16U << 20;
inline constexpr size_t kMaxNodeNameMapLine = 1024;
inline constexpr size_t kMaxNodeName = 256;

struct NodeNameMap {
    std::map<Guid, std::string> names;  ///< node GUID -> name (printable)
};

/// Parses the map's text; `source` names it in errors ("FILE:LINE: ..."),
/// which all have code kExitUsage: a bad line, a line longer than
/// kMaxNodeNameMapLine, a name longer than kMaxNodeName, a GUID given twice.
Result<NodeNameMap> parse_node_name_map(std::string_view text, const std::string& source);
/// Reads and parses a map file, refusing one larger than kMaxNodeNameMapBytes.
Result<NodeNameMap> load_node_name_map(const std::string& path);

/// `f` with each mapped node's description replaced by its name; nodes not
/// in the map keep theirs.
Fabric apply_node_names(const Fabric& f, const NodeNameMap& map);

}  // namespace fabscope
