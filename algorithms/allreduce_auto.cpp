// auto: the allreduce whose analytical cost (cost_model.hpp) is least for this grid, these
// link costs and this size. Every rank evaluates the same pure function on the same inputs,
// so all ranks pick the same algorithm without communicating. Without machine figures
// (Options::cost empty) the choice is made for a uniform network: every dimension 1 us and
// 10 GB/s, reduction at 100 GB/s — which then depends only on p, the grid and S.
//
// Cost: that of the chosen algorithm.
#include "algorithms/collectives.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

void allreduce_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  element_count(buf, type);
  const Dims dims = effective_dims(opts, comm.size());
  const CostParams costs = opts.cost.per_dim.empty() ? uniform_costs(dims) : opts.cost;
  find_algorithm(best_allreduce(dims, costs, buf.bytes, opts)).run(comm, buf, type, op, opts);
}

}  // namespace ddl
