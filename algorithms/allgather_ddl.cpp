// allgather_ddl: the allgather half of ddl (allreduce_ddl.cpp); the mirror image of
// reduce_scatter_ddl.
//
// Vocabulary as ddl's. One redistribution step (redistribute.hpp) first moves each block of
// partition(S, p) to the ranks whose ddl pieces hold its bytes; each slice then allgathers back
// along dimension k, ..., 1 on the growing piece, so the slow outer links carry the small
// pieces and the fast inner ones the large.
//
// Cost (R = 1, rings in every dimension, S_i = S / (d_1 ... d_{i-1})):
//   α + S/p β (the redistribution; none on a flat grid) + Σ_i [ (d_i - 1) α_i + (d_i - 1)/d_i S_i
//   β_i ].
#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void allgather_ddl(Communicator& comm, MutView buf, DType type, ReduceOp, const Options& opts) {
  const std::size_t count = element_count(buf, type), elem = dtype_size(type);
  const Dims dims = effective_dims(opts, comm.size());
  const std::vector<Schedule> schedules =
      ddl_half_schedules(dims, comm.rank(), count, elem, opts, false, "allgather_ddl");
  if (comm.size() == 1 || count == 0) return;
  // Nothing is reduced: the op is only the executor's argument.
  const Schedule to_pieces = {
      blocks_to_pieces(ddl_holdings(dims, count, elem, opts), comm.rank(), count, elem)};
  execute(comm, buf, type, ReduceOp::sum, std::span(&to_pieces, 1),
          {opts.segment_bytes, opts.tag_base});
  ExecOptions exec{opts.segment_bytes, opts.tag_base};
  exec.uniform_runs = UniformRuns{};
  execute(comm, buf, type, ReduceOp::sum, schedules, exec);
}

double allgather_ddl_cost(const CostQuery& q) {
  const Dims grid = algorithm_grid(q);
  const Holdings held = ddl_holdings(grid, q.bytes, 1, q.options);
  return price_schedules(q,
                         [&](int r) {
                           return std::vector<Schedule>{{blocks_to_pieces(held, r, q.bytes, 1)}};
                         }) +
         price_schedules(q, [&](int r) {
           return ddl_half_schedules(grid, r, q.bytes, 1, q.options, false, "allgather_ddl");
         });
}

}  // namespace ddl
