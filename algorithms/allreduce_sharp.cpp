// sharp: allreduce across nodes through the network's switches (InfiniBand SHARP aggregation
// trees, switch_reduction.hpp), joined inside each node by a ring.
//
// Vocabulary (in_switch_steps.hpp): node, rail; a block is one of the g parts of the buffer
// (partition(count, g)), block i belonging to the node's i-th GPU. A SHARP domain is one rail:
// the switches reduce what the GPUs of one local index send through their NICs.
//
// One GPU per node: the switches allreduce the whole buffer. Several: a ring reduce-scatter in
// the node (each GPU ends with its block reduced over the node), the rail's switch allreduce of
// that block across the nodes, a ring allgather in the node.
//
// Cost, with α_s, β_s a GPU's route to the aggregation switch, c chunks of C bytes, ρ the
// switch's time per reduced byte (switch_chunks.hpp has the exact timeline), α_0, β_0 the node:
//   2 (g-1) α_0 + 2 (g-1)/g S β_0 + (g-1)/g S γ       the node's ring, both halves
// + (c + 1)(α_s + C β_s) + N C ρ                       the rail's switch allreduce of S/g
// against hier's or a ring's 2 (N-1) steps between nodes: one pass up and one down whatever N,
// and no GPU reduces what crosses the network. +inf without such switches.
#include <limits>

#include "algorithms/collectives.hpp"
#include "algorithms/in_switch_steps.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void allreduce_sharp(Communicator& comm, MutView buf, DType type, ReduceOp op,
                     const Options& opts) {
  const std::size_t count = element_count(buf, type);
  const std::vector<int> rail = require_switch_domain(comm, kNetworkSwitch, "sharp");
  const int nodes = static_cast<int>(rail.size());
  if (comm.size() % nodes != 0)
    throw InvalidArgument("sharp: " + std::to_string(comm.size()) + " ranks on " +
                          std::to_string(nodes) + " nodes of a SHARP rail: no whole node each");
  const int g = comm.size() / nodes;
  const NodeRail nr = node_and_rail(comm.size(), comm.rank(), g, "sharp");
  require_domain_is(rail, nr.rail, kNetworkSwitch, comm.rank(), "sharp");
  if (comm.size() == 1 || buf.bytes == 0) return;
  const ReduceOp sum = reduction_op(op);
  const Block block = partition(count, static_cast<std::size_t>(g),
                                dtype_size(type))[static_cast<std::size_t>(nr.node.me)];
  const ExecOptions exec{opts.segment_bytes, opts.tag_base};
  if (g > 1) run_ring(comm, buf, type, sum, nr.node, {0, buf.bytes}, true, exec);
  comm.set_phase("switch_allreduce", 1);
  run_switch(comm, kNetworkSwitch, SwitchCollective::allreduce,
             buf.slice(block.offset, block.bytes), type, sum);
  if (g > 1) run_ring(comm, buf, type, sum, nr.node, {0, buf.bytes}, false, exec);
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_sharp_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  const int nodes = q.params.in_switch[kNetworkSwitch].members;
  if (nodes == 0 || p % nodes != 0) return std::numeric_limits<double>::infinity();
  const int g = p / nodes;
  const std::size_t block = partition(q.bytes, static_cast<std::size_t>(g), 1)[0].bytes;
  const double across =
      switch_cost(q.params, kNetworkSwitch, nodes, SwitchCollective::allreduce, block);
  if (g == 1) return across;
  return across + price_schedules(q, [&](int r) {
           const NodeRail nr = node_and_rail(p, r, g, "sharp");
           Schedule s = ring_reduce_scatter(nr.node, {0, q.bytes}, 1, 0);
           const Schedule ag = ring_allgather(nr.node, {0, q.bytes}, 1, 0);
           s.insert(s.end(), ag.begin(), ag.end());
           return std::vector<Schedule>{std::move(s)};
         });
}

}  // namespace ddl
