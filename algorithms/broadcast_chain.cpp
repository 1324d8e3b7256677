// broadcast_chain: pipelined chain from the root through root+1, root+2, ... (mod p).
//
// Vocabulary: the buffer is cut into c element-aligned chunks (Options::segment_bytes each when
// non-zero, else kDefaultChainChunks chunks, or one chunk for p = 2; see chain_chunks()); a
// step is one lockstep round in which the rank at chain position k receives chunk t-k+1 from
// its predecessor while forwarding chunk t-k to its successor. Chunks are the pipeline's unit;
// segments (the executor's unit) coincide with them when segment_bytes is set.
//
// Cost: (p - 2 + c) (α + S/c β): the last rank receives its first chunk after p-1 steps and
// one more chunk per step after that. Best c = sqrt((p-2) S β / α), so for large S the time
// approaches S β, independent of p.
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

void broadcast_chain(Communicator& comm, MutView buf, DType type, ReduceOp op,
                     const Options& opts) {
  (void)op;  // nothing is reduced
  check_root(opts.root, comm.size());
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s = chain_broadcast(world_group(comm), opts.root, Block{0, buf.bytes},
                                     dtype_size(type), opts.segment_bytes, -1);
  execute(comm, buf, type, ReduceOp::sum, std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
}

double broadcast_chain_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  check_root(q.options.root, p);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{chain_broadcast(world_group(p, r), q.options.root, {0, q.bytes}, 1,
                                                 q.options.segment_bytes, -1)};
  });
}

}  // namespace ddl
