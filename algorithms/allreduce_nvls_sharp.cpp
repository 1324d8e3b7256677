// nvls_sharp: in-switch reduction at both levels (switch_reduction.hpp): the node's switch
// reduce-scatters (NVLS), the network's switches allreduce each block across the nodes (SHARP,
// one domain per rail), the node's switch allgathers. NCCL's NVLS with SHARP across nodes.
//
// Vocabulary (in_switch_steps.hpp): node, rail; block i of partition(count, g) belongs to the
// node's i-th GPU; chunk: a switch's unit (switch_chunks.hpp).
//
// Cost: the node switch's reduce-scatter and allgather of S (each about S β_s, as nvls), plus
// the rail's switch allreduce of S/g (as sharp): no GPU reduces anything, and no step's count
// grows with the nodes or the GPUs. +inf unless the machine has both levels.
#include <limits>

#include "algorithms/collectives.hpp"
#include "algorithms/in_switch_steps.hpp"

namespace ddl {

void allreduce_nvls_sharp(Communicator& comm, MutView buf, DType type, ReduceOp op,
                          const Options& opts) {
  (void)opts;  // no messages of its own: neither segments nor tags apply
  const std::size_t count = element_count(buf, type);
  const std::vector<int> node = require_switch_domain(comm, kNodeSwitch, "nvls_sharp");
  const std::vector<int> rail = require_switch_domain(comm, kNetworkSwitch, "nvls_sharp");
  const int g = static_cast<int>(node.size());
  const NodeRail nr = node_and_rail(comm.size(), comm.rank(), g, "nvls_sharp");
  require_domain_is(node, nr.node, kNodeSwitch, comm.rank(), "nvls_sharp");
  require_domain_is(rail, nr.rail, kNetworkSwitch, comm.rank(), "nvls_sharp");
  if (comm.size() == 1 || buf.bytes == 0) return;
  const ReduceOp sum = reduction_op(op);
  const Block block = partition(count, static_cast<std::size_t>(g),
                                dtype_size(type))[static_cast<std::size_t>(nr.node.me)];
  comm.set_phase("switch_reduce_scatter", 0);
  run_switch(comm, kNodeSwitch, SwitchCollective::reduce_scatter, buf, type, sum);
  comm.set_phase("switch_allreduce", 1);
  run_switch(comm, kNetworkSwitch, SwitchCollective::allreduce,
             buf.slice(block.offset, block.bytes), type, sum);
  comm.set_phase("switch_allgather", 0);
  run_switch(comm, kNodeSwitch, SwitchCollective::allgather, buf, type, sum);
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_nvls_sharp_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  const int g = q.params.in_switch[kNodeSwitch].members;
  const int nodes = q.params.in_switch[kNetworkSwitch].members;
  if (g == 0 || nodes == 0 || g * nodes != p) return std::numeric_limits<double>::infinity();
  const std::size_t block = partition(q.bytes, static_cast<std::size_t>(g), 1)[0].bytes;
  return switch_cost(q.params, kNodeSwitch, g, SwitchCollective::reduce_scatter, q.bytes) +
         switch_cost(q.params, kNetworkSwitch, nodes, SwitchCollective::allreduce, block) +
         switch_cost(q.params, kNodeSwitch, g, SwitchCollective::allgather, q.bytes);
}

}  // namespace ddl
