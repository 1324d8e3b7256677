// The flows of every pattern calibration times (calibrate/patterns.hpp): on one node what
// ddlcalibrate has always measured, between nodes the NIC and uplink shapes.
#include <catch2/catch.hpp>

#include "algorithms/error.hpp"
#include "calibrate/patterns.hpp"

using namespace ddl;
using namespace ddl::calibrate;
using Flows = std::vector<Flow>;

TEST_CASE("patterns inside one node", "[calibrate]") {
  const Topology flat{4, 1, 1};
  CHECK(pattern_flows(Pattern::bidirectional, flat) == Flows{{0, 1}, {1, 0}});
  CHECK(pattern_flows(Pattern::two_each_way, flat) == Flows{{0, 1}, {0, 1}, {1, 0}, {1, 0}});
  CHECK(pattern_flows(Pattern::pairs, flat) == Flows{{0, 1}, {1, 0}, {2, 3}, {3, 2}});
  CHECK(pattern_flows(Pattern::ring, flat) == Flows{{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  CHECK(pattern_flows(Pattern::pairs, Topology{3, 1, 1}) == Flows{{0, 1}, {1, 0}});
  CHECK(pattern_flows(Pattern::node_rings, Topology{3, 1, 1}) == Flows{{0, 1}, {1, 2}, {2, 0}});
  CHECK(pattern_flows(Pattern::pingpong, flat).empty());
  CHECK(messages_per_rank(pattern_flows(Pattern::two_each_way, flat)) == 2);
  CHECK(messages_per_rank(pattern_flows(Pattern::ring, flat)) == 1);
  // Repeated flows between one pair take consecutive tags; receives and sends in list order.
  const RankFlows r0 = flows_of_rank(pattern_flows(Pattern::two_each_way, flat), 0);
  REQUIRE(r0.in.size() == 2);
  REQUIRE(r0.out.size() == 2);
  CHECK((r0.in[0].peer == 1 && r0.in[0].tag_offset == 0 && r0.in[1].tag_offset == 1));
  CHECK((r0.out[0].peer == 1 && r0.out[0].tag_offset == 0 && r0.out[1].tag_offset == 1));
  CHECK(flows_of_rank(pattern_flows(Pattern::bidirectional, flat), 2).empty());
}

TEST_CASE("patterns on two leaves of two nodes of two ranks", "[calibrate]") {
  const Topology t{2, 2, 2};
  // Inside node 0 only.
  CHECK(pattern_flows(Pattern::ring, t) == Flows{{0, 1}, {1, 0}});
  CHECK(pattern_flows(Pattern::pairs, t) == Flows{{0, 1}, {1, 0}});
  // Slot s of node 0 to slot s of node 1: two flows through each NIC direction.
  CHECK(pattern_flows(Pattern::nic_one_way, t) == Flows{{0, 2}, {1, 3}});
  CHECK(pattern_flows(Pattern::nic_bidirectional, t) == Flows{{0, 2}, {1, 3}, {2, 0}, {3, 1}});
  // One flow each way through node 0's NIC: two pairs, then one pair.
  CHECK(pattern_flows(Pattern::nic_crossed, t) == Flows{{0, 2}, {3, 1}});
  CHECK(pattern_flows(Pattern::nic_exchange, t) == Flows{{0, 2}, {2, 0}});
  // The first rank of node i of leaf 0 to that of node i of leaf 1.
  CHECK(pattern_flows(Pattern::uplink, t) == Flows{{0, 4}, {2, 6}});
  // One flow each way between the leaves, two pairs.
  CHECK(pattern_flows(Pattern::uplink_crossed, t) == Flows{{0, 4}, {5, 1}});
  CHECK(pattern_flows(Pattern::uplink_crossed, Topology{2, 1, 2}) == Flows{{0, 2}, {3, 1}});
  CHECK(pattern_flows(Pattern::node_rings, t) ==
        Flows{{0, 1}, {1, 0}, {2, 3}, {3, 2}, {4, 5}, {5, 4}, {6, 7}, {7, 6}});
  CHECK(messages_per_rank(pattern_flows(Pattern::nic_bidirectional, t)) == 1);
  const RankFlows r2 = flows_of_rank(pattern_flows(Pattern::nic_bidirectional, t), 2);
  CHECK((r2.in.size() == 1 && r2.in[0].peer == 0 && r2.out.size() == 1 && r2.out[0].peer == 0));
}

TEST_CASE("a pattern the topology cannot hold is refused", "[calibrate]") {
  CHECK_THROWS_WITH(pattern_flows(Pattern::uplink, Topology{2, 2, 1}),
                    "pattern uplink needs 2 leaves of at least 2 nodes");
  CHECK_THROWS_WITH(pattern_flows(Pattern::uplink, Topology{2, 1, 2}),
                    "pattern uplink needs 2 leaves of at least 2 nodes");
  CHECK_THROWS_WITH(pattern_flows(Pattern::nic_one_way, Topology{4, 1, 1}),
                    "pattern nic_one_way needs 2 nodes");
  CHECK_THROWS_WITH(pattern_flows(Pattern::uplink_crossed, Topology{1, 2, 2}),
                    "pattern uplink_crossed needs 2 leaves and 2 ranks in a node");
  CHECK_THROWS_WITH(pattern_flows(Pattern::nic_crossed, Topology{1, 2, 1}),
                    "pattern nic_crossed needs 2 nodes of 2 ranks");
  CHECK(pattern_flows(Pattern::nic_exchange, Topology{1, 2, 1}) == Flows{{0, 1}, {1, 0}});
  CHECK_THROWS_WITH(parse_pattern("star"),
                    Catch::StartsWith("unknown pattern 'star' (pingpong, bidirectional"));
  CHECK(parse_pattern("nic_bidirectional") == Pattern::nic_bidirectional);
}

TEST_CASE("flows through the busiest NIC, both directions together", "[calibrate]") {
  const Topology t{2, 2, 2};
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::nic_one_way, t), t) == 2);
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::nic_bidirectional, t), t) == 4);
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::uplink, t), t) == 1);
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::pairs, t), t) == 0);
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::nic_crossed, t), t) == 2);
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::nic_exchange, t), t) == 2);
}

TEST_CASE("flows between one pair of ranks on different nodes, both directions", "[calibrate]") {
  const Topology t{2, 2, 2};
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::nic_one_way, t), t) == 1);
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::nic_crossed, t), t) == 1);
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::nic_exchange, t), t) == 2);
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::nic_bidirectional, t), t) == 2);
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::uplink, t), t) == 1);
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::uplink_crossed, t), t) == 1);
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::uplink_crossed, t), t) == 2);
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::pairs, t), t) == 0);  // inside node 0
}

TEST_CASE("patterns on rails: two NICs per node, one group of two nodes of four ranks",
          "[calibrate]") {
  const Topology t{4, 2, 1, 2};  // slot s uses NIC s mod 2: slots 0 and 2 on rail 0
  // Slot s to slot s: the same rail, two flows through each NIC direction (G / M).
  CHECK(pattern_flows(Pattern::nic_one_way, t) == Flows{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::nic_one_way, t), t) == 2);
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::nic_bidirectional, t), t) == 4);
  // The second pair is on rank 0's rail (slot 2), so both cross node 0's NIC 0.
  CHECK(pattern_flows(Pattern::nic_crossed, t) == Flows{{0, 4}, {6, 2}});
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::nic_crossed, t), t) == 2);
  CHECK(pattern_flows(Pattern::nic_exchange, t) == Flows{{0, 4}, {4, 0}});
  // Rail 0 to rail 1, one flow per node: two flows up leaf0-up and down leaf1-up.
  CHECK(pattern_flows(Pattern::uplink, t) == Flows{{0, 5}, {4, 1}});
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::uplink, t), t) == 1);
  // One flow each way through node 0's NIC 0 and leaf0-up, two pairs.
  CHECK(pattern_flows(Pattern::uplink_crossed, t) == Flows{{0, 5}, {7, 2}});
  CHECK(nic_flows_both_ways(pattern_flows(Pattern::uplink_crossed, t), t) == 2);
  CHECK(pair_flows_both_ways(pattern_flows(Pattern::uplink_crossed, t), t) == 1);
  // Two groups of rails: the uplink pattern stays leaf 0 to leaf 1 (group 0 to group 1, rail 0).
  const Topology groups{4, 2, 2, 2};
  CHECK(pattern_flows(Pattern::uplink, groups) == Flows{{0, 8}, {4, 12}});
  CHECK(pattern_flows(Pattern::uplink_crossed, groups) == Flows{{0, 8}, {10, 2}});
  // One rank per NIC: no two pairs through one NIC.
  CHECK_THROWS_WITH(pattern_flows(Pattern::nic_crossed, Topology{2, 2, 1, 2}),
                    "pattern nic_crossed needs 2 nodes of 2 ranks per NIC");
  CHECK_THROWS_WITH(pattern_flows(Pattern::uplink_crossed, Topology{2, 2, 1, 2}),
                    "pattern uplink_crossed needs 2 leaves or rails, and 2 ranks per NIC");
  CHECK(pattern_flows(Pattern::uplink, Topology{2, 2, 1, 2}) == Flows{{0, 3}, {2, 1}});
}

TEST_CASE("the uplinks both ways, and the flows through the busiest uplink", "[calibrate]") {
  // Two leaves of two nodes of two ranks: uplink's flows and their reverses.
  const Topology t{2, 2, 2};
  const Flows both = pattern_flows(Pattern::uplink_bidirectional, t);
  CHECK(both == Flows{{0, 4}, {2, 6}, {4, 0}, {6, 2}});
  CHECK(uplink_flows_both_ways(both, t) == 4);
  CHECK(nic_flows_both_ways(both, t) == 2);
  CHECK(uplink_flows_both_ways(pattern_flows(Pattern::uplink, t), t) == 2);
  CHECK(uplink_flows_both_ways(pattern_flows(Pattern::uplink_crossed, t), t) == 2);
  // Inside one leaf no flow crosses an uplink.
  CHECK(uplink_flows_both_ways(pattern_flows(Pattern::nic_bidirectional, t), t) == 0);
  // Rails in one group: rail 0 to rail 1 and back, through leaf0-up and leaf1-up.
  const Topology rails{2, 2, 1, 2};
  const Flows r = pattern_flows(Pattern::uplink_bidirectional, rails);
  CHECK(r == Flows{{0, 3}, {2, 1}, {3, 0}, {1, 2}});
  CHECK(uplink_flows_both_ways(r, rails) == 4);
  CHECK(uplink_flows_both_ways(pattern_flows(Pattern::nic_bidirectional, rails), rails) == 0);
  CHECK(parse_pattern("uplink_bidirectional") == Pattern::uplink_bidirectional);
  CHECK_THROWS_WITH(pattern_flows(Pattern::uplink_bidirectional, Topology{2, 2, 1}),
                    "pattern uplink needs 2 leaves of at least 2 nodes");
}
