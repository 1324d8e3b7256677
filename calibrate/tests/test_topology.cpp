// The machine's layout as calibration sees it (calibrate/topology.hpp): nodes from each rank's
// node label, leaves from --nodes-per-leaf, the link class of a pair, and one clear message for
// every layout it cannot calibrate.
#include <catch2/catch.hpp>

#include "algorithms/error.hpp"
#include "calibrate/topology.hpp"

using namespace ddl;
using namespace ddl::calibrate;

TEST_CASE("two leaves of two nodes of two ranks", "[calibrate]") {
  const Topology t = topology_from_nodes({0, 0, 2, 2, 4, 4, 6, 6}, 2);
  CHECK(t == Topology{2, 2, 2});
  CHECK(t.nodes() == 4);
  CHECK(t.ranks() == 8);
  CHECK(t.dims() == "2x2x2");
  CHECK(t.classes() == std::vector<LinkClass>{LinkClass::node, LinkClass::leaf, LinkClass::spine});
  CHECK(t.class_between(0, 1) == LinkClass::node);
  CHECK(t.class_between(1, 2) == LinkClass::leaf);
  CHECK(t.class_between(3, 4) == LinkClass::spine);
  CHECK(t.class_between(7, 6) == LinkClass::node);
  CHECK(t.node_of(5) == 2);
  CHECK(t.leaf_of(5) == 1);
  CHECK(t.pingpong_peer(LinkClass::node) == 1);
  CHECK(t.pingpong_peer(LinkClass::leaf) == 2);
  CHECK(t.pingpong_peer(LinkClass::spine) == 4);
}

TEST_CASE("without --nodes-per-leaf every node is in one leaf, and one node is the flat machine",
          "[calibrate]") {
  const Topology one_leaf = topology_from_nodes({0, 0, 0, 3, 3, 3}, 0);
  CHECK(one_leaf == Topology{3, 2, 1});
  CHECK(one_leaf.dims() == "3x2");
  CHECK(one_leaf.classes() == std::vector<LinkClass>{LinkClass::node, LinkClass::leaf});
  const Topology flat = topology_from_nodes({5, 5, 5, 5}, 0);
  CHECK(flat == Topology{4, 1, 1});
  CHECK(flat.dims() == "4");
  CHECK(flat.classes() == std::vector<LinkClass>{LinkClass::node});
  // One node per leaf: no leaf class, node 1 is across the spine.
  const Topology spread = topology_from_nodes({0, 0, 2, 2}, 1);
  CHECK(spread == Topology{2, 1, 2});
  CHECK(spread.dims() == "2x1x2");
  CHECK(spread.classes() == std::vector<LinkClass>{LinkClass::node, LinkClass::spine});
  CHECK(spread.pingpong_peer(LinkClass::spine) == 2);
}

TEST_CASE("layouts calibration cannot describe are refused in one sentence", "[calibrate]") {
  CHECK_THROWS_WITH(
      topology_from_nodes({0, 0, 0, 3}, 0),
      "the nodes hold different numbers of ranks (1 to 3): start the same number of ranks on every "
      "node (hostfile slots)");
  CHECK_THROWS_WITH(
      topology_from_nodes({0, 1, 0, 1}, 0),
      "ranks are not numbered node by node (rank 1 is not on the node of rank 0; rank = node * 2 + "
      "slot): place ranks with mpirun --map-by slot");
  CHECK_THROWS_WITH(topology_from_nodes({0, 0, 2, 2, 4, 4}, 2),
                    "--nodes-per-leaf 2 does not divide the 3 node(s) into whole leaves");
  CHECK_THROWS_WITH(
      topology_from_nodes({0, 1}, 0),
      "every node holds one rank: calibrating 2 nodes needs at least 2 ranks per node (the node "
      "class: shared memory)");
  CHECK_THROWS_WITH(parse_link_class("rack"), "link class 'rack' is not node, leaf or spine");
  CHECK(parse_link_class("spine") == LinkClass::spine);
}
