// sendrecv: every rank sends its buffer to rank r+1 and receives rank r-1's (mod p) in one
// step, as nccl-tests' sendrecv: one flow each way through every rank's links.
//
// Vocabulary: in place (out_of_place.hpp): the input is copied once and the send reads the copy
// while the receive writes the buffer.
//
// Cost: α + S β + 2/3 γ S (the copy).
#include "algorithms/collectives.hpp"
#include "algorithms/out_of_place.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

namespace {

Schedule shift_step(int p, int r, std::size_t bytes) {
  Step step;
  step.sends = {{(r + 1) % p, 0, bytes}};
  step.recvs = {{(r - 1 + p) % p, 0, bytes}};
  step.phase = "sendrecv";
  return {step};
}

}  // namespace

void sendrecv_ring(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  (void)op;  // nothing is reduced
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  run_out_of_place(comm, buf, buf.bytes, type, shift_step(comm.size(), comm.rank(), buf.bytes),
                   opts.segment_bytes, opts.tag_base);
}

double sendrecv_ring_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  if (p == 1 || q.bytes == 0) return 0;
  return price_schedules(q,
                         [&](int r) { return std::vector<Schedule>{shift_step(p, r, q.bytes)}; }) +
         local_copy_cost(q.params, q.bytes);
}

}  // namespace ddl
