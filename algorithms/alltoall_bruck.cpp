// alltoall_bruck: Bruck's all-to-all (Bruck et al., IEEE TPDS 8(11), 1997), ceil(log2 p)
// steps instead of p-1, for messages small enough that latency rules.
//
// Vocabulary: block = b = count / p elements, B bytes; position i of the work area holds, after
// the rotation, rank r's block for rank r+i (mod p). At step k (distance d = 2^k) every position
// whose bit k is set is packed into one message to rank r+d, and the message from rank r-d is
// unpacked into the same positions; a block moves by the distance of each bit of its position,
// so after the last step position i holds rank r-i's block for r, and the inverse rotation puts
// it at block r-i.
//
// Cost: ceil(log2 p) (α + n_k B β) with n_k <= ceil(p/2) positions per step, + 2/3 γ B (2p + 2
// sum n_k) for the rotations and the packing (the price of sending fewer, larger messages).
#include <algorithm>

#include "algorithms/collectives.hpp"
#include "algorithms/out_of_place.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

namespace {

// Positions of bit k, as runs [first, last) of consecutive positions.
std::vector<Block> bit_runs(int p, int k) {
  std::vector<Block> runs;
  const std::size_t d = std::size_t{1} << k, n = static_cast<std::size_t>(p);
  for (std::size_t first = d; first < n; first += 2 * d)
    runs.push_back({first, std::min(first + d, n) - first});  // offset, count of positions
  return runs;
}

std::size_t positions(const std::vector<Block>& runs) {
  std::size_t n = 0;
  for (const Block& run : runs) n += run.bytes;
  return n;
}

// Step k's message: out of [0, n B) of the packing area, in at [n B, 2 n B).
Step bruck_step(int p, int r, int k, std::size_t bytes) {
  const int d = 1 << k;
  Step step;
  step.sends = {{(r + d) % p, 0, bytes}};
  step.recvs = {{(r - d % p + p) % p, bytes, bytes}};
  step.phase = "alltoall";
  return step;
}

}  // namespace

void alltoall_bruck(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  (void)op;  // nothing is reduced
  const int p = comm.size(), r = comm.rank();
  const std::size_t block = alltoall_block_bytes(element_count(buf, type), p, dtype_size(type));
  if (p == 1 || block == 0) return;
  const std::size_t n = static_cast<std::size_t>(p), me = static_cast<std::size_t>(r);
  Scratch work(comm, n * block);
  const MutView area = work.view();
  // Rotate: position i <- block r+i.
  comm.copy(area.slice(0, (n - me) * block), buf.slice(me * block, (n - me) * block));
  comm.copy(area.slice((n - me) * block, me * block), buf.slice(0, me * block));
  Scratch packing(comm, 2 * ((n + 1) / 2) * block);  // n_k <= ceil(p/2) positions, out and in
  const MutView pack = packing.view();
  for (int k = 0; k < binomial_steps(p); ++k) {
    const std::vector<Block> runs = bit_runs(p, k);
    const std::size_t bytes = positions(runs) * block;
    std::size_t at = 0;
    for (const Block& run : runs) {
      comm.copy(pack.slice(at, run.bytes * block),
                area.slice(run.offset * block, run.bytes * block));
      at += run.bytes * block;
    }
    const Schedule s = {bruck_step(p, r, k, bytes)};
    execute(comm, pack.slice(0, 2 * bytes), type, ReduceOp::sum, std::span(&s, 1),
            {opts.segment_bytes, opts.tag_base});
    at = bytes;
    for (const Block& run : runs) {
      comm.copy(area.slice(run.offset * block, run.bytes * block),
                pack.slice(at, run.bytes * block));
      at += run.bytes * block;
    }
  }
  // Inverse rotation: block r-i <- position i.
  for (std::size_t i = 0; i < n; ++i)
    comm.copy(buf.slice((me + n - i) % n * block, block), area.slice(i * block, block));
}

double alltoall_bruck_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  const std::size_t block = q.bytes / static_cast<std::size_t>(p);
  if (p == 1 || block == 0) return 0;
  std::size_t packed = 0;
  for (int k = 0; k < binomial_steps(p); ++k) packed += positions(bit_runs(p, k)) * block;
  const double network = price_schedules(q, [&](int r) {
    Schedule s;
    for (int k = 0; k < binomial_steps(p); ++k)
      s.push_back(bruck_step(p, r, k, positions(bit_runs(p, k)) * block));
    return std::vector<Schedule>{s};
  });
  return network + local_copy_cost(q.params, 2 * static_cast<std::size_t>(p) * block + 2 * packed);
}

}  // namespace ddl
