// The message patterns calibration times, as the flows (sender -> receiver) that run at once in
// one step. Pure, so ddlcalibrate (MPI) and the simulator's driver (calibrate/tests/
// sim_pingpong.cpp) send exactly the same messages, and the shapes are unit-tested.
//
// In one step every rank posts a receive for each flow into it, then a send for each flow out
// of it (in the order of the list; flows between the same pair take consecutive tags), and
// waits for all of them: a rank's inbound and outbound messages are in flight together.
#pragma once

#include <string>
#include <vector>

#include "calibrate/topology.hpp"

namespace ddl::calibrate {

enum class Pattern {
  pingpong,  // rank 0 -> peer, then peer -> 0 (not a step: a round trip, timed / 2)
  // Inside node 0 (the node class; on one node: every rank).
  bidirectional,  // ranks 0 and 1 send to each other at once
  two_each_way,   // ranks 0 and 1 send each other two messages at once (a 2-rank dbtree step)
  pairs,          // every pair (2i, 2i+1) of node 0 exchanges at once
  ring,           // every rank of node 0 sends to the next one (a ring step)
  // Between nodes.
  nic_one_way,        // slot s of node 0 -> slot s of node 1, every slot at once: G / M
                      // flows through one direction of each NIC (slot s uses NIC s mod M)
  nic_bidirectional,  // the same and back at once: G / M flows through each direction
  nic_crossed,        // rank 0 -> rank G and rank G+M -> rank M at once: one flow each way
                      // through node 0's NIC, between two different pairs of ranks (a ring
                      // step across nodes); with rails it needs 2 ranks per NIC
  nic_exchange,       // rank 0 -> rank G and back at once: one pair of ranks both ways (a
                      // 2-node exchange of rd, rhd or hier's leaders)
  uplink,             // the first rank of node i of leaf 0 -> the first rank of node i of
                      // leaf 1, every i at once: K flows through each uplink, one per NIC;
                      // rails in one group: slot 0 of node i -> slot 1 of node i+1 (rail 0 to
                      // rail 1), the same K flows through leaf0-up and leaf1-up
  uplink_crossed,     // rank 0 -> rank L and rank L+M -> rank M (L: the spine ping-pong
                      // peer, Topology::pingpong_peer) at once: nic_crossed between leaves, one
                      // flow each way through node 0's NIC and leaf 0's uplink
  // Every node at once: each rank sends to the next slot of its own node (the reduce timings'
  // ring step, which stays off the network).
  node_rings,
  uplink_bidirectional,  // uplink's flows and their reverses at once: K flows each way through
                         // every uplink (and one each way through each NIC): what tells an
                         // uplink both ways from one way (a ring across leaves or rails in
                         // both directions, as channels run)
};
const char* to_string(Pattern p);
Pattern parse_pattern(const std::string& text);  // InvalidArgument naming text

struct Flow {
  int src = 0, dst = 0;
  bool operator==(const Flow&) const = default;
};

// The flows of one step of `p` on `t` (pingpong: none; it is timed apart). Throws
// InvalidArgument when `t` lacks what the pattern needs (e.g. uplink on one leaf).
std::vector<Flow> pattern_flows(Pattern p, const Topology& t);

// The most flows through one NIC, both directions together (flows between two nodes of `t`,
// each through its rank's own NIC; what n<i>-duplex counts: calibrate/network_model.hpp).
int nic_flows_both_ways(const std::vector<Flow>& flows, const Topology& t);

// The most flows through one leaf's uplink, both directions together (flows between leaves;
// what leaf<j>-duplex counts: calibrate/network_model.hpp); 0 when none crosses an uplink.
int uplink_flows_both_ways(const std::vector<Flow>& flows, const Topology& t);

// The most flows between one pair of ranks on different nodes, both directions together (what
// a pair's link counts: calibrate/network_model.hpp); 0 when no flow leaves its node.
int pair_flows_both_ways(const std::vector<Flow>& flows, const Topology& t);

// The most messages one rank sends, or receives, in a step (so all ranks size their buffers
// and batches alike).
int messages_per_rank(const std::vector<Flow>& flows);

// The flows `rank` takes part in, in list order: the ones into it and the ones out of it, each
// with its tag offset (0, 1, ... for repeated flows between one pair).
struct RankFlow {
  int peer = 0;
  int tag_offset = 0;
};
struct RankFlows {
  std::vector<RankFlow> in, out;
  bool empty() const { return in.empty() && out.empty(); }
};
RankFlows flows_of_rank(const std::vector<Flow>& flows, int rank);

}  // namespace ddl::calibrate
