#include "algorithms/ring_steps.hpp"

namespace ddl {

namespace {

Transfer block_transfer(const std::vector<Block>& blocks, const Group& group, int index, int peer) {
  const int g = group.size();
  const Block& b = blocks[static_cast<std::size_t>(((index % g) + g) % g)];
  return {peer, b.offset, b.bytes};
}

Schedule ring_steps(const Group& group, Block range, std::size_t elem_size, int dimension,
                    bool reduce_scatter) {
  const int g = group.size(), i = group.me;
  Schedule steps;
  if (g <= 1) return steps;
  const std::vector<Block> blocks = partition(range, static_cast<std::size_t>(g), elem_size);
  const int next = group.at(i + 1), prev = group.at(i - 1);
  // Reduce-scatter at step s sends block i-s-1; allgather sends block i-s (its own first).
  const int lead = reduce_scatter ? 1 : 0;
  for (int s = 0; s < g - 1; ++s) {
    Step step;
    step.sends.push_back(block_transfer(blocks, group, i - s - lead, next));
    step.recvs.push_back(block_transfer(blocks, group, i - s - lead - 1, prev));
    step.reduce = reduce_scatter;
    step.phase = reduce_scatter ? "reduce_scatter" : "allgather";
    step.dimension = dimension;
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

Schedule ring_reduce_scatter(const Group& group, Block range, std::size_t elem_size,
                             int dimension) {
  return ring_steps(group, range, elem_size, dimension, true);
}

Schedule ring_allgather(const Group& group, Block range, std::size_t elem_size, int dimension) {
  return ring_steps(group, range, elem_size, dimension, false);
}

}  // namespace ddl
