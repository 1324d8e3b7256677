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

TEST_CASE("rails: two NICs per node, one group of two nodes", "[calibrate]") {
  // Slot s uses NIC s mod 2; NIC k of both nodes is on leaf k (one group).
  const Topology t = topology_from_nodes({0, 0, 2, 2}, 0, 2);
  CHECK(t == Topology{2, 2, 1, 2});
  CHECK(t.dims() == "2x2");
  CHECK(t.ranks_per_nic() == 1);
  CHECK(t.leaf_switches() == 2);
  // Across rails in one group is spine: the classes list it though there is one group.
  CHECK(t.classes() == std::vector<LinkClass>{LinkClass::node, LinkClass::leaf, LinkClass::spine});
  CHECK(t.class_between(0, 1) == LinkClass::node);
  CHECK(t.class_between(0, 2) == LinkClass::leaf);
  CHECK(t.class_between(1, 3) == LinkClass::leaf);
  CHECK(t.class_between(0, 3) == LinkClass::spine);
  CHECK(t.class_between(1, 2) == LinkClass::spine);
  CHECK(t.class_between(3, 0) == LinkClass::spine);
  CHECK(t.leaf_of(0) == 0);
  CHECK(t.leaf_of(1) == 1);
  CHECK(t.leaf_of(2) == 0);
  CHECK(t.leaf_of(3) == 1);
  CHECK(t.nic_of(3) == 1);
  CHECK(t.pingpong_peer(LinkClass::node) == 1);
  CHECK(t.pingpong_peer(LinkClass::leaf) == 2);
  CHECK(t.pingpong_peer(LinkClass::spine) == 3);  // node 1, slot 1: rail 1
}

TEST_CASE("rails: two NICs per node, two groups of two nodes of four ranks", "[calibrate]") {
  const Topology t =
      topology_from_nodes({0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12}, 2, 2);
  CHECK(t == Topology{4, 2, 2, 2});
  CHECK(t.dims() == "4x2x2");
  CHECK(t.ranks_per_nic() == 2);
  CHECK(t.leaf_switches() == 4);
  CHECK(t.classes() == std::vector<LinkClass>{LinkClass::node, LinkClass::leaf, LinkClass::spine});
  CHECK(t.class_between(0, 4) == LinkClass::leaf);   // node 1 slot 0: rail 0, group 0
  CHECK(t.class_between(0, 6) == LinkClass::leaf);   // slot 2: rail 0 too
  CHECK(t.class_between(0, 5) == LinkClass::spine);  // rail 1
  CHECK(t.class_between(0, 8) == LinkClass::spine);  // group 1
  CHECK(t.class_between(2, 3) == LinkClass::node);
  CHECK(t.leaf_of(13) == 3);  // node 3: group 1, slot 1: rail 1 -> leaf 1 * 2 + 1
  CHECK(t.leaf_of(10) == 2);
  CHECK(t.pingpong_peer(LinkClass::leaf) == 4);
  CHECK(t.pingpong_peer(LinkClass::spine) == 8);  // today's choice: leaf 1's first rank
  // One node per group: no leaf class.
  const Topology spread = topology_from_nodes({0, 0, 2, 2}, 1, 2);
  CHECK(spread == Topology{2, 1, 2, 2});
  CHECK(spread.classes() == std::vector<LinkClass>{LinkClass::node, LinkClass::spine});
  CHECK(spread.pingpong_peer(LinkClass::spine) == 2);
}

TEST_CASE("rails: NIC counts calibration cannot describe are refused in one sentence",
          "[calibrate]") {
  CHECK_THROWS_WITH(topology_from_nodes({0, 0, 0, 3, 3, 3}, 0, 2),
                    "--nics 2 does not divide the 3 ranks per node: start a multiple of --nics "
                    "ranks on every node");
  CHECK_THROWS_WITH(topology_from_nodes({0, 0}, 0, 2),
                    "--nics 2 needs at least 2 nodes (rails connect nodes)");
  CHECK_THROWS_WITH(topology_from_nodes({0, 0, 2, 2}, 0, 0), "--nics must be at least 1");
  // One NIC is the default: exactly the topology as before.
  CHECK(topology_from_nodes({0, 0, 2, 2}, 0, 1) == topology_from_nodes({0, 0, 2, 2}, 0));
}
