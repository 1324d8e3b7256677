// ring: bandwidth-optimal allreduce over all p ranks in rank order.
//
// A reduce-scatter (p-1 steps: each rank sends one block of S/p bytes to its successor and
// reduces the block it receives) followed by an allgather (p-1 steps, no reduction). With
// segmenting, each block transfer is split into segments whose reductions overlap the rest.
//
// Cost: 2(p-1) α + 2 (p-1)/p S β + (p-1)/p S γ, where α, β belong to the slowest link the
// ring crosses (every step waits for its slowest transfer).
#include "algorithms/collectives.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void allreduce_ring(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Group group = world_group(comm);
  const ExecOptions exec{opts.segment_bytes, opts.tag_base};
  run_ring(comm, buf, type, reduction_op(op), group, {0, buf.bytes}, true, exec);
  run_ring(comm, buf, type, reduction_op(op), group, {0, buf.bytes}, false, exec);
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_ring_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(q, [&](int r) {
    const Group group = world_group(p, r);
    Schedule s = ring_reduce_scatter(group, {0, q.bytes}, 1, -1);
    const Schedule ag = ring_allgather(group, {0, q.bytes}, 1, -1);
    s.insert(s.end(), ag.begin(), ag.end());
    return std::vector<Schedule>{std::move(s)};
  });
}

}  // namespace ddl
