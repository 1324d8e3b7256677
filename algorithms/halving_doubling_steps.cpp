// Recursive halving / doubling inside a power-of-two group.
//
// The range is cut into g blocks once (partition(range, g)); every exchange moves a contiguous
// run of whole blocks, so uneven (even empty) blocks need no special case: a half is "blocks
// [first, first + m)", whatever their sizes. Before the step with distance m, member i holds
// the run of 2m blocks whose indices agree with i above bit m (the run starting at
// i & ~(2m - 1)); it keeps the m blocks on its own side of m (bit m of i) and hands the others
// to member i ^ m, whose own run is the same 2m blocks.
#include "algorithms/halving_doubling_steps.hpp"

#include <algorithm>
#include <string>

namespace ddl {

bool is_power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}

namespace {

// Blocks [first, first + m) of `blocks` as one transfer to `peer`.
Transfer run_transfer(const std::vector<Block>& blocks, int first, int m, int peer) {
  const auto begin = static_cast<std::size_t>(first);
  std::size_t bytes = 0;
  for (std::size_t b = begin; b < begin + static_cast<std::size_t>(m); ++b)
    bytes += blocks[b].bytes;
  return {peer, blocks[begin].offset, bytes};
}

Schedule hd_steps(const Group& group, Block range, std::size_t elem_size, int dimension,
                  bool reduce_scatter) {
  const int g = group.size(), i = group.me;
  if (!is_power_of_two(g))
    throw InvalidArgument("halving-doubling needs a power-of-two group, got " + std::to_string(g) +
                          " members");
  DDL_CHECK(i >= 0 && i < g, "group member index out of range");
  Schedule steps;
  const std::vector<Block> blocks = partition(range, static_cast<std::size_t>(g), elem_size);
  std::vector<int> distances;
  for (int m = 1; m < g; m *= 2) distances.push_back(m);
  if (reduce_scatter) std::reverse(distances.begin(), distances.end());
  for (const int m : distances) {
    const int peer_index = i ^ m;
    const int peer = group.ranks[static_cast<std::size_t>(peer_index)];
    // The m-block runs of this member and of its peer at this distance.
    const int mine = i & ~(m - 1), theirs = peer_index & ~(m - 1);
    Step step;
    if (reduce_scatter) {
      // Keep (and reduce into) my side, send the peer's side.
      step.sends.push_back(run_transfer(blocks, theirs, m, peer));
      step.recvs.push_back(run_transfer(blocks, mine, m, peer));
    } else {
      // Mirror: hand over what I hold, receive what the peer holds.
      step.sends.push_back(run_transfer(blocks, mine, m, peer));
      step.recvs.push_back(run_transfer(blocks, theirs, m, peer));
    }
    step.reduce = reduce_scatter;
    step.phase = reduce_scatter ? "reduce_scatter" : "allgather";
    step.dimension = dimension;
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

Schedule hd_reduce_scatter(const Group& group, Block range, std::size_t elem_size, int dimension) {
  return hd_steps(group, range, elem_size, dimension, true);
}

Schedule hd_allgather(const Group& group, Block range, std::size_t elem_size, int dimension) {
  return hd_steps(group, range, elem_size, dimension, false);
}

}  // namespace ddl
