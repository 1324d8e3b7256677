// reduce_scatter_hd: the reduce-scatter half of rhd (Rabenseifner), for any rank count, then the
// pieces to ddl's blocks.
//
// Vocabulary as rhd's (allreduce_rhd.cpp): p' survivors, r = p - p' folded ranks, *order* of the
// halving distances (Options::hd_order). The fold (p not a power of two) sends each folded
// rank's whole buffer to its survivor, which reduces it; log2 p' halving steps leave survivor j
// with block hd_owned_block(j) of partition(S, p') reduced; one redistribution step
// (redistribute.hpp) moves those bytes to the owners of partition(S, p)'s blocks. With p a
// power of two and order=far survivor j holds block j and nothing moves; near-first (the
// default: the largest halves over the fastest links) holds the bit-reversed block, which moves
// once.
//
// Cost, p a power of two: log2 p α + (p-1)/p S β + (p-1)/p S γ, plus α + S/p β for the
// redistribution unless order=far; otherwise the fold adds α + S β + S γ and the redistribution
// α + S/p' β.
#include "algorithms/allreduce_rhd.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

namespace {

Schedule reduce_scatter_hd_schedule(int ranks, int rank, std::size_t count, std::size_t elem_size,
                                    HdOrder order) {
  const int survivors = rhd_survivors(ranks), folded = ranks - survivors;
  const Block all{0, count * elem_size};
  Schedule schedule;
  if (folded > 0) schedule.push_back(rhd_fold(ranks, rank, all));
  if (rhd_survives(ranks, rank)) {
    const Schedule rs = hd_reduce_scatter(rhd_group(ranks, rank), all, elem_size, -1, order);
    schedule.insert(schedule.end(), rs.begin(), rs.end());
  } else {
    schedule.resize(schedule.size() + hd_distances(survivors, order).size());  // idle
  }
  // Every rank has the step, empty or not (allgather_hd's first step says why).
  schedule.push_back(
      pieces_to_blocks(rhd_holdings(ranks, count, elem_size, order), rank, count, elem_size));
  return schedule;
}

}  // namespace

void reduce_scatter_hd(Communicator& comm, MutView buf, DType type, ReduceOp op,
                       const Options& opts) {
  const std::size_t count = element_count(buf, type), elem = dtype_size(type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s =
      reduce_scatter_hd_schedule(comm.size(), comm.rank(), count, elem, opts.hd_order);
  execute(comm, buf, type, reduction_op(op), std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
  const Block mine = partition(count, static_cast<std::size_t>(comm.size()),
                               elem)[static_cast<std::size_t>(comm.rank())];
  finish_average(comm, buf.slice(mine.offset, mine.bytes), type, op,
                 static_cast<std::size_t>(comm.size()));
}

double reduce_scatter_hd_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{reduce_scatter_hd_schedule(p, r, q.bytes, 1, q.options.hd_order)};
  });
}

}  // namespace ddl
