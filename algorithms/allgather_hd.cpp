// allgather_hd: the allgather half of rhd (recursive doubling over the survivors' blocks), for
// any rank count; the mirror image of reduce_scatter_hd.
//
// Vocabulary as rhd's (allreduce_rhd.cpp). One redistribution step (redistribute.hpp) first
// moves each block of partition(S, p) to the survivors whose hd block holds its bytes (nothing
// moves for p a power of two with order=far); log2 p' doubling steps then give every survivor
// the whole buffer; the unfold (p not a power of two) sends it to each folded rank.
//
// Cost, p a power of two: log2 p α + (p-1)/p S β, plus α + S/p β for the redistribution unless
// order=far; otherwise the redistribution α + S/p' β and the unfold α + S β.
#include "algorithms/allreduce_rhd.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

namespace {

Schedule allgather_hd_schedule(int ranks, int rank, std::size_t count, std::size_t elem_size,
                               HdOrder order) {
  const int survivors = rhd_survivors(ranks), folded = ranks - survivors;
  const Block all{0, count * elem_size};
  Schedule schedule;
  // Every rank has the step, empty or not, so that step t is the same exchange on every rank
  // (the cost model prices step by step).
  schedule.push_back(
      blocks_to_pieces(rhd_holdings(ranks, count, elem_size, order), rank, count, elem_size));
  if (rhd_survives(ranks, rank)) {
    const Schedule ag = hd_allgather(rhd_group(ranks, rank), all, elem_size, -1, order);
    schedule.insert(schedule.end(), ag.begin(), ag.end());
  } else {
    schedule.resize(schedule.size() + hd_distances(survivors, order).size());  // idle
  }
  if (folded > 0) schedule.push_back(rhd_unfold(ranks, rank, all));
  return schedule;
}

}  // namespace

void allgather_hd(Communicator& comm, MutView buf, DType type, ReduceOp, const Options& opts) {
  const std::size_t count = element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s =
      allgather_hd_schedule(comm.size(), comm.rank(), count, dtype_size(type), opts.hd_order);
  // Nothing is reduced: the op is only the executor's argument.
  execute(comm, buf, type, ReduceOp::sum, std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
}

double allgather_hd_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{allgather_hd_schedule(p, r, q.bytes, 1, q.options.hd_order)};
  });
}

}  // namespace ddl
