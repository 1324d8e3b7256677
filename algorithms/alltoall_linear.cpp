// alltoall_linear: one step in which rank r sends its block for every peer and receives every
// peer's block for it, all at once, as NCCL's all-to-all (ncclGroupStart, a send and a receive
// per peer, ncclGroupEnd). One latency; the p-1 flows each way share the rank's links.
//
// Vocabulary: block = b = count / p elements, B bytes (out_of_place.hpp: the input is copied
// once, the sends read the copy).
//
// Cost: α + (p-1) B β where one link carries every flow (the topology prices the sharing) +
// 2/3 γ p B (the copy).
#include "algorithms/collectives.hpp"
#include "algorithms/out_of_place.hpp"

namespace ddl {

namespace {

Schedule linear_step(int p, int r, std::size_t block) {
  Step step;
  for (int k = 1; k < p; ++k) {
    const int to = (r + k) % p, from = (r - k + p) % p;
    step.sends.push_back({to, static_cast<std::size_t>(to) * block, block});
    step.recvs.push_back({from, static_cast<std::size_t>(from) * block, block});
  }
  step.phase = "alltoall";
  return {step};
}

}  // namespace

void alltoall_linear(Communicator& comm, MutView buf, DType type, ReduceOp op,
                     const Options& opts) {
  (void)op;  // nothing is reduced
  run_alltoall(comm, buf, type, opts, linear_step);
}

double alltoall_linear_cost(const CostQuery& q) {
  return alltoall_cost(q, linear_step);
}

}  // namespace ddl
