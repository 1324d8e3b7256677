// allgather: ring allgather over all p ranks; rank r contributes block r (partition(count,
// p)) and ends with every block. p-1 steps, each forwarding one block of S/p bytes.
//
// Cost: (p-1) α + (p-1)/p S β.
#include "algorithms/collectives.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void allgather_ring(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  (void)op;  // nothing is reduced
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  run_ring(comm, buf, type, ReduceOp::sum, world_group(comm), {0, buf.bytes}, false,
           {opts.segment_bytes, opts.tag_base});
}

double allgather_ring_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{ring_allgather(world_group(p, r), {0, q.bytes}, 1, -1)};
  });
}

}  // namespace ddl
