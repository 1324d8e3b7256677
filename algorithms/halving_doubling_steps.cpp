// Recursive halving / doubling inside a power-of-two group.
//
// The range is cut into g blocks once (partition(range, g)); every exchange moves a contiguous
// run of whole blocks, so uneven (even empty) blocks need no special case: a half is "blocks
// [first, first + n)", whatever their sizes. Before a step at distance m, member i and member
// i ^ m hold the same run: the runs are chosen by the bits of the distances walked so far,
// which the two agree on. Each step halves the run, the upper half going to the member whose
// bit m is set. Walking the distances far-first (g/2, ..., 1) ends member i on block i; near-
// first (1, ..., g/2) on block bit-reverse(i), because the first split (the largest) is chosen
// by the lowest bit.
#include "algorithms/halving_doubling_steps.hpp"

#include <algorithm>
#include <string>

namespace ddl {

bool is_power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}

std::vector<int> hd_distances(int group_size, HdOrder order) {
  std::vector<int> distances;
  for (int m = 1; m < group_size; m *= 2) distances.push_back(m);
  if (order == HdOrder::far) std::reverse(distances.begin(), distances.end());
  return distances;
}

int hd_owned_block(int member, int group_size, HdOrder order) {
  int first = 0, run = group_size;
  for (const int m : hd_distances(group_size, order)) {
    run /= 2;
    if (member & m) first += run;
  }
  return first;
}

namespace {

// Blocks [first, first + n) of `blocks` as one transfer to `peer`.
Transfer run_transfer(const std::vector<Block>& blocks, int first, int n, int peer) {
  const auto begin = static_cast<std::size_t>(first);
  std::size_t bytes = 0;
  for (std::size_t b = begin; b < begin + static_cast<std::size_t>(n); ++b)
    bytes += blocks[b].bytes;
  return {peer, blocks[begin].offset, bytes};
}

struct Exchange {
  int peer;   // world rank
  int kept;   // first block of the half this member keeps
  int given;  // first block of the half it hands over
  int half;   // blocks in each half
};

// Out of line: inlined into its caller, GCC 12 warns about the string concatenation (-Wrestrict).
[[noreturn]] __attribute__((noinline)) void throw_not_power_of_two(int g) {
  throw InvalidArgument("halving-doubling needs a power-of-two group, got " + std::to_string(g) +
                        " members");
}

// The reduce-scatter's exchanges of member group.me, in order.
std::vector<Exchange> exchanges(const Group& group, HdOrder order) {
  const int g = group.size(), i = group.me;
  if (!is_power_of_two(g)) throw_not_power_of_two(g);
  DDL_CHECK(i >= 0 && i < g, "group member index out of range");
  std::vector<Exchange> out;
  int first = 0, run = g;
  for (const int m : hd_distances(g, order)) {
    run /= 2;
    const int upper = first + run;
    const bool mine_upper = (i & m) != 0;
    out.push_back({group.ranks[static_cast<std::size_t>(i ^ m)], mine_upper ? upper : first,
                   mine_upper ? first : upper, run});
    if (mine_upper) first = upper;
  }
  return out;
}

}  // namespace

Schedule hd_reduce_scatter(const Group& group, Block range, std::size_t elem_size, int dimension,
                           HdOrder order) {
  const std::vector<Exchange> xs = exchanges(group, order);
  const std::vector<Block> blocks =
      partition(range, static_cast<std::size_t>(group.size()), elem_size);
  Schedule steps;
  for (const Exchange& x : xs) {
    Step step;
    // Keep (and reduce into) my half, send the peer's.
    step.sends.push_back(run_transfer(blocks, x.given, x.half, x.peer));
    step.recvs.push_back(run_transfer(blocks, x.kept, x.half, x.peer));
    step.reduce = true;
    step.phase = "reduce_scatter";
    step.dimension = dimension;
    steps.push_back(std::move(step));
  }
  return steps;
}

Schedule hd_allgather(const Group& group, Block range, std::size_t elem_size, int dimension,
                      HdOrder order) {
  const std::vector<Exchange> xs = exchanges(group, order);
  const std::vector<Block> blocks =
      partition(range, static_cast<std::size_t>(group.size()), elem_size);
  Schedule steps;
  for (auto x = xs.rbegin(); x != xs.rend(); ++x) {
    Step step;
    // Mirror: hand over the half I hold, receive the peer's.
    step.sends.push_back(run_transfer(blocks, x->kept, x->half, x->peer));
    step.recvs.push_back(run_transfer(blocks, x->given, x->half, x->peer));
    step.phase = "allgather";
    step.dimension = dimension;
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace ddl
