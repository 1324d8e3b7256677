// rd: recursive doubling, the latency-optimal allreduce for small buffers (MPICH's and Open MPI's
// choice below a few KB): log2(p) steps, each exchanging the whole buffer with one partner and
// reducing it, against the 2 (p-1) steps of ring and the 2 log2(p) of rhd.
//
// Vocabulary (as in rhd): p' = the largest power of two <= p are the *survivors*, the r = p - p'
// others are *folded*. At the step of distance m (1, 2, ..., p'/2) survivor i exchanges the whole
// buffer with survivor i^m and reduces what it receives into its own: afterwards each holds the
// reduction over the 2m survivors whose new ranks differ from its own only in the bits below 2m.
// Both partners of an exchange combine the same two partial results, a + b on one and b + a on
// the other, which IEEE addition and every other reduction op give bit for bit alike: every rank
// ends with the same bits. Each step reduces into the bytes it sends: the executor completes the
// step's sends before it reduces (schedule.hpp).
//
// Fix-up for p not a power of two: rhd's (allreduce_rhd.cpp): each even rank 2j < 2r sends its
// whole buffer to 2j+1, which reduces it and takes new rank j; ranks >= 2r take rank - r; after
// the exchanges 2j+1 sends the result back to 2j.
//
// Cost for p a power of two, on one link class:
//   log2(p) (α + S β + S γ)
// Otherwise the same with p', plus the fold α + S β + S γ and the unfold α + S β. Against ring,
// 2 (p-1) α + 2 (p-1)/p S β + (p-1)/p S γ: fewer latencies, more bytes, so it wins only where α
// dominates (small S); schedule_cost prices it step by step on the real link classes.
#include "algorithms/allreduce_rd.hpp"

#include "algorithms/allreduce_rhd.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

Schedule rd_schedule(int ranks, int rank, std::size_t count, std::size_t elem_size) {
  DDL_CHECK(rank >= 0 && rank < ranks, "rd: rank out of range");
  const int survivors = rhd_survivors(ranks), folded = ranks - survivors;
  const std::size_t all = count * elem_size;
  const bool survives = rank >= 2 * folded || rank % 2 == 1;
  const int me = rank >= 2 * folded ? rank - folded : rank / 2;
  // The world rank of survivor `i` (new-rank order: odd ranks of the folded pairs, then the rest).
  auto world = [folded](int i) { return i < folded ? 2 * i + 1 : i + folded; };

  Schedule schedule;
  if (folded > 0) {
    Step fold;
    fold.phase = "fold";
    if (rank < 2 * folded && survives) {
      fold.recvs.push_back({rank - 1, 0, all});
      fold.reduce = true;
    } else if (rank < 2 * folded) {
      fold.sends.push_back({rank + 1, 0, all});
    }
    schedule.push_back(fold);
  }
  for (int m = 1; m < survivors; m *= 2) {
    Step exchange;
    exchange.phase = "exchange";
    if (survives) {
      const int peer = world(me ^ m);
      exchange.sends.push_back({peer, 0, all});
      exchange.recvs.push_back({peer, 0, all});
      exchange.reduce = true;
    }
    schedule.push_back(exchange);
  }
  if (folded > 0) {
    Step unfold;
    unfold.phase = "unfold";
    if (rank < 2 * folded && survives)
      unfold.sends.push_back({rank - 1, 0, all});
    else if (rank < 2 * folded)
      unfold.recvs.push_back({rank + 1, 0, all});
    schedule.push_back(unfold);
  }
  return schedule;
}

void allreduce_rd(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  const std::size_t count = element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s = rd_schedule(comm.size(), comm.rank(), count, dtype_size(type));
  execute(comm, buf, type, reduction_op(op), std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_rd_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(
      q, [&](int r) { return std::vector<Schedule>{rd_schedule(p, r, q.bytes, 1)}; });
}

}  // namespace ddl
