// alltoall_pairwise: p-1 steps; at step k rank r sends its block for rank r+k and receives rank
// r-k's block for it (mod p), so every step is one send and one receive, each peer once. MPI's
// choice for large messages: no step crowds a NIC with more than one flow each way.
//
// Vocabulary: block = b = count / p elements, B bytes (out_of_place.hpp: the input is copied
// once, the sends read the copy).
//
// Cost: (p-1) (α + B β) + 2/3 γ p B (the copy).
#include "algorithms/collectives.hpp"
#include "algorithms/out_of_place.hpp"

namespace ddl {

namespace {

Schedule pairwise_steps(int p, int r, std::size_t block) {
  Schedule s;
  for (int k = 1; k < p; ++k) {
    const int to = (r + k) % p, from = (r - k + p) % p;
    Step step;
    step.sends = {{to, static_cast<std::size_t>(to) * block, block}};
    step.recvs = {{from, static_cast<std::size_t>(from) * block, block}};
    step.phase = "alltoall";
    s.push_back(std::move(step));
  }
  return s;
}

}  // namespace

void alltoall_pairwise(Communicator& comm, MutView buf, DType type, ReduceOp op,
                       const Options& opts) {
  (void)op;  // nothing is reduced
  run_alltoall(comm, buf, type, opts, pairwise_steps);
}

double alltoall_pairwise_cost(const CostQuery& q) {
  return alltoall_cost(q, pairwise_steps);
}

}  // namespace ddl
