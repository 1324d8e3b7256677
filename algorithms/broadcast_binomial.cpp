// broadcast_binomial: binomial tree from the root, the whole buffer per step.
//
// Vocabulary: a step is one lockstep round; at step s (distance m = 2^s) every rank at
// position k < m relative to the root (k + m < p) sends the whole buffer to position k + m,
// so the set of ranks holding the data doubles. Segments (Options::segment_bytes) split each
// transfer inside the executor; they pipeline nothing across steps.
//
// Cost: ceil(log2 p) (α + S β). Fewer steps than the chain (latency-bound sizes win), but
// every step moves all S bytes (bandwidth-bound sizes lose).
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

void broadcast_binomial(Communicator& comm, MutView buf, DType type, ReduceOp op,
                        const Options& opts) {
  (void)op;  // nothing is reduced
  check_root(opts.root, comm.size());
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s =
      binomial_broadcast(world_group(comm), opts.root, Block{0, buf.bytes}, dtype_size(type), -1);
  execute(comm, buf, type, ReduceOp::sum, std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
}

double broadcast_binomial_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  check_root(q.options.root, p);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{
        binomial_broadcast(world_group(p, r), q.options.root, {0, q.bytes}, 1, -1)};
  });
}

}  // namespace ddl
