// reduce_binomial: binomial tree toward the root, the whole buffer per step, the mirror image
// of broadcast_binomial: at each step half the ranks still holding a partial reduction send it
// to a partner, which reduces it; MPI's choice for small messages.
//
// Vocabulary: a step is one lockstep round at distance m (p'/2, ..., 2, 1; p' = 2^ceil(log2 p),
// tree_steps.hpp): the rank at position k + m relative to the root sends to position k.
//
// Cost: ceil(log2 p) (α + S β + S γ). Only the root's buffer is defined afterwards.
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

void reduce_binomial(Communicator& comm, MutView buf, DType type, ReduceOp op,
                     const Options& opts) {
  check_root(opts.root, comm.size());
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s =
      binomial_reduce(world_group(comm), opts.root, Block{0, buf.bytes}, dtype_size(type), -1);
  execute(comm, buf, type, reduction_op(op), std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
  if (comm.rank() == opts.root)
    finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double reduce_binomial_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  check_root(q.options.root, p);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{
        binomial_reduce(world_group(p, r), q.options.root, {0, q.bytes}, 1, -1)};
  });
}

}  // namespace ddl
