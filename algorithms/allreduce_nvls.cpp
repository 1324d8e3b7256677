// nvls: allreduce through the node's switch (NVLink SHARP, switch_reduction.hpp), joined across
// nodes by a ring per rail.
//
// Vocabulary (in_switch_steps.hpp): node, rail; a block is one of the g parts of the buffer
// (partition(count, g)), block i belonging to the node's i-th GPU; chunk: the switch's unit
// (switch_chunks.hpp).
//
// One node: every GPU sends its buffer to the switch once and receives the sum, chunk by chunk,
// uplink and downlink busy together. Several nodes: the switch reduce-scatters (each GPU sends
// all, receives its block reduced over the node), each rail runs a ring allreduce of its block
// over the nodes (every GPU through its own NIC), and the switch allgathers (each GPU sends its
// block, the switch multicasts it to the node).
//
// Cost, with α_s, β_s a GPU's route to the switch, c chunks of C bytes, ρ the switch's time per
// reduced byte (switch_chunks.hpp has the exact timeline it plays):
//   one node:  (c + 1)(α_s + C β_s) + g C ρ
//   N nodes:   the switch's reduce-scatter and allgather of S (each about S β_s)
//            + 2 (N-1) α_n + 2 (N-1)/N (S/g) β_n + (N-1)/N (S/g) γ   (the rail's ring)
// against a ring's 2 (p-1) α + 2 (p-1)/p S β + (p-1)/p S γ: the node's links carry S each way
// instead of 2 (p-1)/p S, and the GPUs reduce nothing inside the node. +inf where the machine
// has no node switch that reduces.
#include <limits>

#include "algorithms/collectives.hpp"
#include "algorithms/in_switch_steps.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void allreduce_nvls(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  const std::size_t count = element_count(buf, type);
  const std::vector<int> node = require_switch_domain(comm, kNodeSwitch, "nvls");
  const int g = static_cast<int>(node.size());
  const NodeRail nr = node_and_rail(comm.size(), comm.rank(), g, "nvls");
  require_domain_is(node, nr.node, kNodeSwitch, comm.rank(), "nvls");
  if (comm.size() == 1 || buf.bytes == 0) return;
  const ReduceOp sum = reduction_op(op);
  if (nr.rail.size() == 1) {
    comm.set_phase("switch_allreduce", 0);
    run_switch(comm, kNodeSwitch, SwitchCollective::allreduce, buf, type, sum);
  } else {
    comm.set_phase("switch_reduce_scatter", 0);
    run_switch(comm, kNodeSwitch, SwitchCollective::reduce_scatter, buf, type, sum);
    const Block block = partition(count, static_cast<std::size_t>(g),
                                  dtype_size(type))[static_cast<std::size_t>(nr.node.me)];
    const ExecOptions exec{opts.segment_bytes, opts.tag_base};
    run_ring(comm, buf, type, sum, nr.rail, block, true, exec);
    run_ring(comm, buf, type, sum, nr.rail, block, false, exec);
    comm.set_phase("switch_allgather", 0);
    run_switch(comm, kNodeSwitch, SwitchCollective::allgather, buf, type, sum);
  }
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_nvls_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  const int g = q.params.in_switch[kNodeSwitch].members;
  if (g == 0 || p % g != 0) return std::numeric_limits<double>::infinity();
  if (g == p) return switch_cost(q.params, kNodeSwitch, g, SwitchCollective::allreduce, q.bytes);
  const double rail = price_schedules(q, [&](int r) {
    const NodeRail nr = node_and_rail(p, r, g, "nvls");
    const Block block =
        partition(q.bytes, static_cast<std::size_t>(g), 1)[static_cast<std::size_t>(nr.node.me)];
    Schedule s = ring_reduce_scatter(nr.rail, block, 1, -1);
    const Schedule ag = ring_allgather(nr.rail, block, 1, -1);
    s.insert(s.end(), ag.begin(), ag.end());
    return std::vector<Schedule>{std::move(s)};
  });
  return switch_cost(q.params, kNodeSwitch, g, SwitchCollective::reduce_scatter, q.bytes) + rail +
         switch_cost(q.params, kNodeSwitch, g, SwitchCollective::allgather, q.bytes);
}

}  // namespace ddl
