// rhd: Rabenseifner's allreduce, recursive halving reduce-scatter then recursive doubling
// allgather, for any rank count.
//
// Vocabulary: p' = the largest power of two <= p are the *survivors*; the r = p - p' other
// ranks are *folded*. Blocks are partition(count, p') over the survivors' new ranks; at each
// halving step a survivor swaps half of the blocks it still holds with its partner and reduces
// the half it keeps, so it ends with one reduced block; the doubling steps retrace those
// exchanges without reducing. *Order* (Options::hd_order) is the sequence of partner distances:
// near (the default, MPICH's) 1, 2, ..., p'/2, so with node-major ranks the first and largest
// halves cross the fastest links (NVLink inside a node) and only the small ones the network;
// far p'/2, ..., 1, the largest half over the longest distance.
//
// Fix-up for p not a power of two (MPICH's convention): among the first 2r ranks, each even
// rank 2j sends its whole buffer to 2j+1, which reduces it (*fold*) and takes new rank j; the
// ranks >= 2r take new rank (rank - r). The p' survivors run halving-doubling among
// themselves, then 2j+1 sends the finished buffer back to 2j (*unfold*). Folded ranks sit
// idle (empty steps) in between. One message each way per pair keeps the fix-up at two
// steps; splitting the fold into half-buffer exchanges would move fewer bytes per link but
// add steps, which is the wrong trade where rhd is chosen (latency-bound sizes).
//
// Cost for p a power of two, on one link class (every step pays the largest transfer of any
// rank; either order moves the same bytes, the classes they cross differ):
//   2 log2(p) α + 2 (p-1)/p S β + (p-1)/p S γ
// Otherwise the same with p' for p, plus the fix-up: fold α + S β + S γ, unfold α + S β, i.e.
//   (2 log2(p') + 2) α + (2 (p'-1)/p' + 2) S β + ((p'-1)/p' + 1) S γ.
// On several classes the step at distance m crosses the class where ranks i and i^m differ:
// near-first pays the inner class for S/2, far-first the outer one (schedule_cost prices it).
#include "algorithms/allreduce_rhd.hpp"

#include "algorithms/collectives.hpp"
#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

int rhd_survivors(int ranks) {
  DDL_CHECK(ranks >= 1, "rhd needs at least one rank");
  int survivors = 1;
  while (survivors <= ranks / 2) survivors *= 2;
  return survivors;
}

bool rhd_survives(int ranks, int rank) {
  return rank >= 2 * (ranks - rhd_survivors(ranks)) || rank % 2 == 1;
}

Group rhd_group(int ranks, int rank) {
  DDL_CHECK(rank >= 0 && rank < ranks, "rhd: rank out of range");
  const int folded = ranks - rhd_survivors(ranks);
  // Survivors in new-rank order: the odd ranks of the folded pairs, then everyone from 2r on.
  Group group;
  for (int r = 0; r < ranks; ++r)
    if (rhd_survives(ranks, r)) group.ranks.push_back(r);
  group.me = rank >= 2 * folded ? rank - folded : rank / 2;
  return group;
}

Step rhd_fold(int ranks, int rank, Block all) {
  const int folded = ranks - rhd_survivors(ranks);
  Step fold;
  fold.phase = "fold";
  if (rank < 2 * folded && rank % 2 == 1) {
    fold.recvs.push_back({rank - 1, all.offset, all.bytes});
    fold.reduce = true;
  } else if (rank < 2 * folded) {
    fold.sends.push_back({rank + 1, all.offset, all.bytes});
  }
  return fold;
}

Step rhd_unfold(int ranks, int rank, Block all) {
  const int folded = ranks - rhd_survivors(ranks);
  Step unfold;
  unfold.phase = "unfold";
  if (rank < 2 * folded && rank % 2 == 1)
    unfold.sends.push_back({rank - 1, all.offset, all.bytes});
  else if (rank < 2 * folded)
    unfold.recvs.push_back({rank + 1, all.offset, all.bytes});
  return unfold;
}

Holdings rhd_holdings(int ranks, std::size_t count, std::size_t elem_size, HdOrder order) {
  const int survivors = rhd_survivors(ranks);
  const std::vector<Block> blocks =
      partition(count, static_cast<std::size_t>(survivors), elem_size);
  Holdings held(static_cast<std::size_t>(ranks));
  const Group group = rhd_group(ranks, 0);  // the survivors in new-rank order
  for (int j = 0; j < survivors; ++j)
    held[static_cast<std::size_t>(group.ranks[static_cast<std::size_t>(j)])].push_back(
        blocks[static_cast<std::size_t>(hd_owned_block(j, survivors, order))]);
  return held;
}

Schedule rhd_schedule(int ranks, int rank, std::size_t count, std::size_t elem_size,
                      HdOrder order) {
  const int survivors = rhd_survivors(ranks), folded = ranks - survivors;
  const Block all{0, count * elem_size};
  const Group group = rhd_group(ranks, rank);
  const bool survives = rhd_survives(ranks, rank);

  Schedule schedule;
  if (folded > 0) schedule.push_back(rhd_fold(ranks, rank, all));
  if (survives) {
    const Schedule rs = hd_reduce_scatter(group, all, elem_size, -1, order);
    const Schedule ag = hd_allgather(group, all, elem_size, -1, order);
    schedule.insert(schedule.end(), rs.begin(), rs.end());
    schedule.insert(schedule.end(), ag.begin(), ag.end());
  } else {
    int halving_steps = 0;
    for (int m = 1; m < survivors; m *= 2) ++halving_steps;
    schedule.resize(schedule.size() + 2 * static_cast<std::size_t>(halving_steps));
  }
  if (folded > 0) schedule.push_back(rhd_unfold(ranks, rank, all));
  return schedule;
}

void allreduce_rhd(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  const std::size_t count = element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s = rhd_schedule(comm.size(), comm.rank(), count, dtype_size(type), opts.hd_order);
  execute(comm, buf, type, reduction_op(op), std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_rhd_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{rhd_schedule(p, r, q.bytes, 1, q.options.hd_order)};
  });
}

}  // namespace ddl
