#include "algorithms/tree_steps.hpp"

#include <algorithm>
#include <string>

namespace ddl {

namespace {

// Position of `index` in a group of g members rooted at root_index.
int position(int index, int root_index, int g) {
  return ((index - root_index) % g + g) % g;
}

void check_group_root(const Group& group, int root_index) {
  DDL_CHECK(root_index >= 0 && root_index < group.size(),
            "root index " + std::to_string(root_index) + " outside a group of " +
                std::to_string(group.size()));
}

// Both chain directions share one shape: `f` is the distance from where the data enters the
// chain (the root for a broadcast, the tail for a reduce); the member at distance f receives
// chunk t-f+1 from upstream and passes chunk t-f downstream.
Schedule chain_steps(const Group& group, int root_index, Block range, std::size_t elem_size,
                     std::size_t chunk_bytes, int dimension, bool reduce) {
  const int g = group.size();
  Schedule steps;
  if (g <= 1 || range.bytes == 0) return steps;
  check_group_root(group, root_index);
  const std::vector<Block> chunks = chain_chunks(range, elem_size, chunk_bytes, g);
  const int c = static_cast<int>(chunks.size());
  const int k = position(group.me, root_index, g);
  const int f = reduce ? g - 1 - k : k;
  const int toward_tail = group.at(group.me + 1), toward_root = group.at(group.me - 1);
  const int downstream = reduce ? toward_root : toward_tail;
  const int upstream = reduce ? toward_tail : toward_root;
  for (int t = 0; t < c + g - 2; ++t) {
    Step step;
    step.reduce = reduce;
    step.phase = reduce ? "reduce" : "broadcast";
    step.dimension = dimension;
    const int send = t - f, recv = t - f + 1;
    if (f < g - 1 && send >= 0 && send < c) {
      const Block& b = chunks[static_cast<std::size_t>(send)];
      step.sends.push_back({downstream, b.offset, b.bytes});
    }
    if (f > 0 && recv >= 0 && recv < c) {
      const Block& b = chunks[static_cast<std::size_t>(recv)];
      step.recvs.push_back({upstream, b.offset, b.bytes});
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

// Step s of a binomial broadcast uses distance 2^s; the reduce runs the same steps backwards.
Schedule binomial_steps_of(const Group& group, int root_index, Block range, std::size_t elem_size,
                           int dimension, bool reduce) {
  const int g = group.size();
  Schedule steps;
  if (g <= 1 || range.bytes == 0) return steps;
  check_group_root(group, root_index);
  DDL_CHECK(elem_size > 0 && range.bytes % elem_size == 0,
            "range is not a whole number of elements");
  const int n = binomial_steps(g);
  const int k = position(group.me, root_index, g);
  for (int i = 0; i < n; ++i) {
    const int m = 1 << (reduce ? n - 1 - i : i);
    Step step;
    step.reduce = reduce;
    step.phase = reduce ? "reduce" : "broadcast";
    step.dimension = dimension;
    // The pair at this distance: the parent (position < m) and the child (position + m).
    if (k < m && k + m < g) {
      const Transfer t{group.at(root_index + k + m), range.offset, range.bytes};
      (reduce ? step.recvs : step.sends).push_back(t);
    } else if (k >= m && k < 2 * m) {
      const Transfer t{group.at(root_index + k - m), range.offset, range.bytes};
      (reduce ? step.sends : step.recvs).push_back(t);
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

std::vector<Block> chain_chunks(Block range, std::size_t elem_size, std::size_t chunk_bytes,
                                int members) {
  DDL_CHECK(elem_size > 0 && range.bytes % elem_size == 0,
            "range is not a whole number of elements");
  const std::size_t count = range.bytes / elem_size;
  if (count == 0) return {};
  std::size_t parts = 1;
  if (chunk_bytes > 0) {
    const std::size_t chunk_elems = std::max<std::size_t>(1, chunk_bytes / elem_size);
    parts = (count + chunk_elems - 1) / chunk_elems;
  } else if (members > 2) {
    parts = std::min(count, kDefaultChainChunks);
  }
  return partition(range, parts, elem_size);
}

Schedule chain_broadcast(const Group& group, int root_index, Block range, std::size_t elem_size,
                         std::size_t chunk_bytes, int dimension) {
  return chain_steps(group, root_index, range, elem_size, chunk_bytes, dimension, false);
}

Schedule chain_reduce(const Group& group, int root_index, Block range, std::size_t elem_size,
                      std::size_t chunk_bytes, int dimension) {
  return chain_steps(group, root_index, range, elem_size, chunk_bytes, dimension, true);
}

int binomial_steps(int members) {
  int n = 0;
  while ((1 << n) < members) ++n;
  return n;
}

Schedule binomial_broadcast(const Group& group, int root_index, Block range, std::size_t elem_size,
                            int dimension) {
  return binomial_steps_of(group, root_index, range, elem_size, dimension, false);
}

Schedule binomial_reduce(const Group& group, int root_index, Block range, std::size_t elem_size,
                         int dimension) {
  return binomial_steps_of(group, root_index, range, elem_size, dimension, true);
}

void check_root(int root, int ranks) {
  if (root < 0 || root >= ranks)
    throw InvalidArgument("root " + std::to_string(root) + " is not a rank of a world of " +
                          std::to_string(ranks) + " (valid: 0.." + std::to_string(ranks - 1) + ")");
}

}  // namespace ddl
