#pragma once
// The fabric as a Boost.Graph: a vertex per node (its index in
// Fabric::nodes()), an edge per link (edge_index: its index in
// Fabric::links()). Kept out of model/fabric.h so that only the analyses
// that walk the graph (model/tiers) pay for Boost.Graph's headers.

#include <boost/graph/adjacency_list.hpp>

namespace fabscope {

struct FabricGraph {
    using Graph =
        boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                              boost::property<boost::edge_index_t, size_t>>;
    Graph g;
};

}  // namespace fabscope
