#include "calibrate/launch.hpp"

#include <algorithm>
#include <iostream>

#include "harness/sizes.hpp"

namespace ddl::calibrate {
namespace {

// Local work `bytes` long, on rank 0 alone and on every rank at once.
template <typename Time>
LocalTimes local_times(std::size_t bytes, Time&& time) {
  return {bytes, summarize(time(false)), summarize(time(true))};
}

void inside_node(MpiCommunicator& comm, const Topology& t, const LaunchPlan& plan,
                 Measurements& m) {
  const int g = t.ranks_per_node;
  // Messages: one flow alone, then the contended patterns.
  // two_each_way loads each direction of a rank's link with two flows (a 2-rank dbtree's step):
  // with 2 ranks, the only pattern that does.
  std::vector<Pattern> kinds = {Pattern::bidirectional, Pattern::two_each_way};
  m.patterns.push_back({to_string(Pattern::bidirectional), 2, 1});
  m.patterns.push_back({to_string(Pattern::two_each_way), 4, 2});
  if (g >= 4) {
    kinds.push_back(Pattern::pairs);
    m.patterns.push_back({to_string(Pattern::pairs), g / 2 * 2, 1});
  }
  if (g >= 3) {
    kinds.push_back(Pattern::ring);
    m.patterns.push_back({to_string(Pattern::ring), g, 1});
  }
  for (std::size_t bytes : plan.sizes) {
    MessageTimes row{
        bytes,
        summarize(time_pattern(comm, Pattern::pingpong, t, bytes, plan.reps, plan.receive)),
        {},
        std::nullopt};
    for (Pattern p : kinds)
      row.patterns.push_back(summarize(time_pattern(comm, p, t, bytes, plan.reps, plan.receive)));
    // What landing in just-read lines costs (the platform's ddl_peer_read_factors); when every
    // pattern already lands there, there is nothing to compare with.
    if (plan.receive == ReceiveBuffers::own)
      row.bidirectional_peer_read = summarize(time_pattern(comm, Pattern::bidirectional, t, bytes,
                                                           plan.reps, ReceiveBuffers::peer_read));
    if (comm.rank() == 0)
      std::cerr << "ddlcalibrate: " << harness::format_size(bytes) << " one-way "
                << row.pingpong.median * 1e6 << " us\n";
    m.messages.push_back(std::move(row));
  }
}

// One class between nodes. Messages land in the receivers' own buffers: whose cache lines a
// receive buffer holds is a question inside one node's memory only.
ClassMessages between_nodes(MpiCommunicator& comm, const Topology& t, LinkClass c,
                            const LaunchPlan& plan) {
  ClassMessages cm;
  cm.link_class = c;
  std::vector<Pattern> kinds;
  // Node 0 to node 1 loads their NICs (and, with one node per leaf, the uplinks on the way).
  // Slot s of both nodes uses rail s mod M: G / M flows through each NIC (and uplink).
  if (t.class_between(0, t.ranks_per_node) == c) {
    const int per_nic = t.ranks_per_nic();
    const int uplink = c == LinkClass::spine ? per_nic : 0;
    kinds = {Pattern::nic_one_way, Pattern::nic_bidirectional};
    cm.patterns = {{to_string(Pattern::nic_one_way), per_nic, uplink},
                   {to_string(Pattern::nic_bidirectional), per_nic, uplink}};
    // One flow each way through the NIC, by two pairs and by one pair: what tells the NIC both
    // ways (a ring step across nodes) from one connection both ways (an exchange); with one
    // rank per NIC the two are the same flows as nic_bidirectional.
    if (t.ranks_per_nic() >= 2) {
      const int one_uplink = c == LinkClass::spine ? 1 : 0;
      for (Pattern p : {Pattern::nic_crossed, Pattern::nic_exchange}) {
        kinds.push_back(p);
        cm.patterns.push_back({to_string(p), 1, one_uplink});
      }
    }
  }
  // K flows through one uplink, one per NIC (with rails in one group: rail 0 to rail 1).
  if (c == LinkClass::spine && t.nodes_per_leaf >= 2) {
    kinds.push_back(Pattern::uplink);
    cm.patterns.push_back({to_string(Pattern::uplink), 1, t.nodes_per_leaf});
    // The class's own lone flow as a collective step sees it (nic_crossed's role for a leaf).
    if (t.ranks_per_nic() >= 2) {
      kinds.push_back(Pattern::uplink_crossed);
      cm.patterns.push_back({to_string(Pattern::uplink_crossed), 1, 1});
    }
    // The same K flows and their reverses: the uplinks both ways at once (leaf<j>-duplex).
    kinds.push_back(Pattern::uplink_bidirectional);
    cm.patterns.push_back({to_string(Pattern::uplink_bidirectional), 1, t.nodes_per_leaf});
  }
  const int peer = t.pingpong_peer(c);
  for (std::size_t bytes : plan.network_sizes) {
    MessageTimes row{bytes,
                     summarize(time_pattern(comm, Pattern::pingpong, t, bytes, plan.reps,
                                            ReceiveBuffers::own, peer)),
                     {},
                     std::nullopt};
    for (Pattern p : kinds)
      row.patterns.push_back(summarize(time_pattern(comm, p, t, bytes, plan.reps)));
    if (comm.rank() == 0)
      std::cerr << "ddlcalibrate: " << to_string(c) << " " << harness::format_size(bytes)
                << " one-way " << row.pingpong.median * 1e6 << " us\n";
    cm.messages.push_back(std::move(row));
  }
  return cm;
}

}  // namespace

Measurements measure_launch(MpiCommunicator& comm, const Topology& t, const LaunchPlan& plan) {
  Measurements m;
  m.ranks = comm.size();
  m.reps = plan.reps;
  m.receive_buffers = to_string(plan.receive);
  m.topology = t;
  inside_node(comm, t, plan, m);
  for (LinkClass c : t.classes())
    if (c != LinkClass::node) m.network.push_back(between_nodes(comm, t, c, plan));
  // Local work: every dtype at --reduce-bytes; float over a size sweep (4K to the largest
  // message, doubling: the reduces a collective does are message-sized), since the caches make
  // throughput depend on size, which the platform carries as ddl_memory_factors. The sweep
  // reduces what a ring step has just brought in, as a collective does: on hot operands the
  // same reduce runs 1.5-2x faster at 64 KB-1 MB here, and the simulator's reduces all follow a
  // receive.
  for (DType type : all_dtypes())
    m.reduce.emplace_back(std::string(to_string(type)),
                          local_times(plan.reduce_bytes, [&](bool all) {
                            return time_reduce(comm, t, type, plan.reduce_bytes, plan.reps, all);
                          }));
  for (std::size_t bytes :
       harness::size_sweep(4096, std::max<std::size_t>(plan.sizes.back(), 8192), 2))
    m.reduce_float_by_size.push_back(local_times(bytes, [&](bool all) {
      return time_reduce(comm, t, DType::float32, bytes, plan.reps, all, Operands::received);
    }));
  m.by_size_operands = to_string(Operands::received);
  m.copy = local_times(plan.reduce_bytes, [&](bool all) {
    return time_copy(comm, plan.reduce_bytes, plan.reps, all);
  });
  return m;
}

}  // namespace ddl::calibrate
