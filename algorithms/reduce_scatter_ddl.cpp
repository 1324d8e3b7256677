// reduce_scatter_ddl: the reduce-scatter half of ddl (allreduce_ddl.cpp), then the pieces to
// ddl's blocks.
//
// Vocabulary as ddl's: the grid d1 x ... x dk (Options::dims), slices (rings) walking the
// dimensions in rotated orders, a ring or halving-doubling exchange per dimension
// (Options::methods, hd_order). Each slice reduce-scatters along dimension 1, 2, ..., k on the
// shrinking piece, so the slow outer links carry pieces already cut by the fast inner ones; a
// rank then holds, per slice, a piece of S / (R p) bytes whose place follows its grid
// coordinates, not its rank, and one redistribution step (redistribute.hpp) hands each piece's
// bytes to the owners of partition(S, p)'s blocks. Chunks (the allreduce's pipeline) are not
// taken: there is no allgather to overlap the reduce-scatter with.
//
// Cost (R = 1, rings in every dimension, S_i = S / (d_1 ... d_{i-1})):
//   Σ_i [ (d_i - 1) α_i + (d_i - 1)/d_i S_i (β_i + γ) ] + α + S/p β (the redistribution; none
// on a flat grid, where piece and block coincide).
#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void reduce_scatter_ddl(Communicator& comm, MutView buf, DType type, ReduceOp op,
                        const Options& opts) {
  const std::size_t count = element_count(buf, type), elem = dtype_size(type);
  const Dims dims = effective_dims(opts, comm.size());
  const std::vector<Schedule> schedules =
      ddl_half_schedules(dims, comm.rank(), count, elem, opts, true, "reduce_scatter_ddl");
  if (comm.size() == 1 || count == 0) return;
  // Every rank walks the same dimensions with groups of the same size: runs are uniform.
  ExecOptions exec{opts.segment_bytes, opts.tag_base};
  exec.uniform_runs = UniformRuns{};
  execute(comm, buf, type, reduction_op(op), schedules, exec);
  const Schedule to_blocks = {
      pieces_to_blocks(ddl_holdings(dims, count, elem, opts), comm.rank(), count, elem)};
  execute(comm, buf, type, reduction_op(op), std::span(&to_blocks, 1),
          {opts.segment_bytes, opts.tag_base});
  const Block mine = partition(count, static_cast<std::size_t>(comm.size()),
                               elem)[static_cast<std::size_t>(comm.rank())];
  finish_average(comm, buf.slice(mine.offset, mine.bytes), type, op,
                 static_cast<std::size_t>(comm.size()));
}

double reduce_scatter_ddl_cost(const CostQuery& q) {
  const Dims grid = algorithm_grid(q);
  const Holdings held = ddl_holdings(grid, q.bytes, 1, q.options);
  return price_schedules(q,
                         [&](int r) {
                           return ddl_half_schedules(grid, r, q.bytes, 1, q.options, true,
                                                     "reduce_scatter_ddl");
                         }) +
         price_schedules(q, [&](int r) {
           return std::vector<Schedule>{{pieces_to_blocks(held, r, q.bytes, 1)}};
         });
}

}  // namespace ddl
