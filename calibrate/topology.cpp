#include "calibrate/topology.hpp"

#include <algorithm>
#include <map>

#include "algorithms/error.hpp"

namespace ddl::calibrate {

const char* to_string(LinkClass c) {
  switch (c) {
    case LinkClass::node: return "node";
    case LinkClass::leaf: return "leaf";
    case LinkClass::spine: return "spine";
  }
  return "?";
}

LinkClass parse_link_class(const std::string& text) {
  for (LinkClass c : {LinkClass::node, LinkClass::leaf, LinkClass::spine})
    if (text == to_string(c)) return c;
  throw InvalidArgument("link class '" + text + "' is not node, leaf or spine");
}

LinkClass Topology::class_between(int a, int b) const {
  if (node_of(a) == node_of(b)) return LinkClass::node;
  // leaf_of is the leaf of the rank's own NIC: with rails, same group and same rail.
  return leaf_of(a) == leaf_of(b) ? LinkClass::leaf : LinkClass::spine;
}

std::vector<LinkClass> Topology::classes() const {
  std::vector<LinkClass> c;
  if (ranks_per_node > 1) c.push_back(LinkClass::node);
  if (nodes_per_leaf > 1) c.push_back(LinkClass::leaf);
  // With rails, ranks of two nodes on different rails meet across the uplinks even in one group.
  if (nodes() > 1 && (leaves > 1 || nics > 1)) c.push_back(LinkClass::spine);
  return c;
}

int Topology::pingpong_peer(LinkClass c) const {
  switch (c) {
    case LinkClass::node: return 1;
    case LinkClass::leaf: return ranks_per_node;
    case LinkClass::spine:
      // One group with rails: node 1's slot 1 is on rail 1, rank 0 on rail 0.
      if (leaves == 1 && nics > 1) return ranks_per_node + 1;
      return nodes_per_leaf * ranks_per_node;
  }
  return 1;
}

std::string Topology::dims() const {
  if (nodes() == 1) return std::to_string(ranks_per_node);
  std::string d = std::to_string(ranks_per_node);
  d += 'x';
  d += std::to_string(nodes_per_leaf);
  if (leaves > 1) {
    d += 'x';
    d += std::to_string(leaves);
  }
  return d;
}

Topology topology_from_nodes(const std::vector<int>& node_of_rank, int nodes_per_leaf, int nics) {
  if (node_of_rank.empty()) throw InvalidArgument("calibration: no ranks");
  if (nodes_per_leaf < 0) throw InvalidArgument("--nodes-per-leaf must be positive");
  if (nics < 1) throw InvalidArgument("--nics must be at least 1");
  // Ranks per node label, and whether each node's ranks are consecutive.
  std::map<int, int> count;
  for (int label : node_of_rank) ++count[label];
  const auto [fewest, most] = std::minmax_element(
      count.begin(), count.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (fewest->second != most->second)
    throw InvalidArgument("the nodes hold different numbers of ranks (" +
                          std::to_string(fewest->second) + " to " + std::to_string(most->second) +
                          "): start the same number of ranks on every node (hostfile slots)");
  Topology t;
  t.ranks_per_node = most->second;
  const int nodes = static_cast<int>(count.size());
  for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
    const std::size_t first =
        r / static_cast<std::size_t>(t.ranks_per_node) * static_cast<std::size_t>(t.ranks_per_node);
    if (node_of_rank[r] != node_of_rank[first])
      throw InvalidArgument("ranks are not numbered node by node (rank " + std::to_string(r) +
                            " is not on the node of rank " + std::to_string(first) +
                            "; rank = node * " + std::to_string(t.ranks_per_node) +
                            " + slot): place ranks with mpirun --map-by slot");
  }
  if (nodes > 1 && t.ranks_per_node < 2)
    throw InvalidArgument("every node holds one rank: calibrating " + std::to_string(nodes) +
                          " nodes needs at least 2 ranks per node (the node class: shared memory)");
  t.nodes_per_leaf = nodes_per_leaf == 0 ? nodes : nodes_per_leaf;
  if (nodes % t.nodes_per_leaf != 0)
    throw InvalidArgument("--nodes-per-leaf " + std::to_string(t.nodes_per_leaf) +
                          " does not divide the " + std::to_string(nodes) +
                          " node(s) into whole leaves");
  t.leaves = nodes / t.nodes_per_leaf;
  // Every NIC carries the same number of ranks (slot s uses NIC s mod M), so the NIC patterns'
  // flows per NIC are G / M on every NIC.
  if (t.ranks_per_node % nics != 0)
    throw InvalidArgument("--nics " + std::to_string(nics) + " does not divide the " +
                          std::to_string(t.ranks_per_node) +
                          " ranks per node: start a multiple of --nics ranks on every node");
  if (nics > 1 && nodes < 2)
    throw InvalidArgument("--nics " + std::to_string(nics) +
                          " needs at least 2 nodes (rails connect nodes)");
  t.nics = nics;
  return t;
}

}  // namespace ddl::calibrate
