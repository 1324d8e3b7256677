// reduce_scatter: ring reduce-scatter over all p ranks; rank r ends with block r
// (partition(count, p)) reduced. p-1 steps, each sending one block of S/p bytes.
//
// Cost: (p-1) α + (p-1)/p S β + (p-1)/p S γ.
#include "algorithms/collectives.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void reduce_scatter_ring(Communicator& comm, MutView buf, DType type, ReduceOp op,
                         const Options& opts) {
  const std::size_t count = element_count(buf, type), elem = dtype_size(type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  run_ring(comm, buf, type, reduction_op(op), world_group(comm), {0, buf.bytes}, true,
           {opts.segment_bytes, opts.tag_base});
  const Block mine = partition(count, static_cast<std::size_t>(comm.size()),
                               elem)[static_cast<std::size_t>(comm.rank())];
  finish_average(comm, buf.slice(mine.offset, mine.bytes), type, op,
                 static_cast<std::size_t>(comm.size()));
}

double reduce_scatter_ring_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{ring_reduce_scatter(world_group(p, r), {0, q.bytes}, 1, -1)};
  });
}

}  // namespace ddl
