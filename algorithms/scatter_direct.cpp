// scatter: the root sends every rank its block (partition(count, p)) in one step, and each rank
// receives its own, as NCCL's scatter (the root's sends grouped, a receive per rank).
//
// Vocabulary: block r = rank r's share of the buffer, B_r bytes (blocks differ by at most one
// element).
//
// Cost: α + (S - B_root) β where the root's one link carries every flow (the topology prices
// the sharing).
#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

namespace {

Schedule scatter_step(int p, int r, int root, std::size_t bytes, std::size_t elem) {
  const std::vector<Block> blocks = partition(bytes / elem, static_cast<std::size_t>(p), elem);
  Step step;
  step.phase = "scatter";
  if (r == root) {
    for (int j = 0; j < p; ++j)
      if (j != root) {
        const Block& b = blocks[static_cast<std::size_t>(j)];
        step.sends.push_back({j, b.offset, b.bytes});
      }
  } else {
    const Block& b = blocks[static_cast<std::size_t>(r)];
    step.recvs.push_back({root, b.offset, b.bytes});
  }
  return {step};
}

}  // namespace

void scatter_direct(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  (void)op;  // nothing is reduced
  check_root(opts.root, comm.size());
  element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s = scatter_step(comm.size(), comm.rank(), opts.root, buf.bytes, dtype_size(type));
  execute(comm, buf, type, ReduceOp::sum, std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
}

double scatter_direct_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  check_root(q.options.root, p);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{scatter_step(p, r, q.options.root, q.bytes, 1)};
  });
}

}  // namespace ddl
