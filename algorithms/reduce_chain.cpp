// reduce_chain: pipelined chain toward the root, the mirror image of broadcast_chain: chunks
// flow from root-1 (mod p) through root-2, ... to the root, each rank adding its own before it
// forwards; NCCL's ring reduce.
//
// Vocabulary: the buffer is cut into c element-aligned chunks (Options::segment_bytes each when
// non-zero, else tree_steps.hpp's default count); a step is one lockstep round in which a rank
// receives and reduces one chunk from its predecessor in the chain while forwarding the chunk
// it reduced the step before.
//
// Cost: (p - 2 + c) (α + S/c β + S/c γ). Only the root's buffer is defined afterwards.
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

void reduce_chain(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  check_root(opts.root, comm.size());
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s = chain_reduce(world_group(comm), opts.root, Block{0, buf.bytes},
                                  dtype_size(type), opts.segment_bytes, -1);
  execute(comm, buf, type, reduction_op(op), std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
  if (comm.rank() == opts.root)
    finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double reduce_chain_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  check_root(q.options.root, p);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{chain_reduce(world_group(p, r), q.options.root, {0, q.bytes}, 1,
                                              q.options.segment_bytes, -1)};
  });
}

}  // namespace ddl
