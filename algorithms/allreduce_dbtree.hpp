// The pure schedule builders of allreduce_dbtree, exposed for tests and for the cost model.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "algorithms/schedule.hpp"

namespace ddl {

// A rooted tree over ranks 0..p-1.
struct BinaryTree {
  int root = 0;
  std::vector<int> parent;                 // per rank; -1 at the root
  std::vector<std::vector<int>> children;  // per rank, ascending
  std::vector<int> depth;                  // per rank; 0 at the root
  int height() const;                      // largest depth
};

// NCCL's binary tree on ranks in order (root 0, whose one child is the largest power of two
// below p; every odd rank is a leaf, every even rank an interior node).
BinaryTree nccl_btree(int ranks);
// NCCL's double binary tree: nccl_btree and its mirror (rank r -> p-1-r) for even p, or its
// shift by one rank (r -> r+1 mod p) for odd p. The interior nodes of the first tree are
// leaves of the second, except rank 0 for odd p, which is interior in both.
std::array<BinaryTree, 2> double_binary_tree(int ranks);

// Chunks of one tree's half when Options::segment_bytes is 0: up to kDbtreeChunks, none
// smaller than kDbtreeMinChunkBytes (a smaller chunk would pay a step's latency for a transfer
// shorter than that latency on the links trees are used for).
inline constexpr std::size_t kDbtreeChunks = 8;
inline constexpr std::size_t kDbtreeMinChunkBytes = 64 * 1024;
// The chunks a tree cuts `half` into: element-aligned, differing by at most one element.
// chunk_bytes > 0: ceil(half / chunk) chunks of at most chunk_bytes (at least one element
// each); 0: the default above. Empty when the half is empty.
std::vector<Block> dbtree_chunks(Block half, std::size_t elem_size, std::size_t chunk_bytes);

// One tree's pipelined allreduce of `chunks` for `rank`, as two schedules of equal length
// c + 2H - 1 (H = tree.height()): {reduce up (receives reduced), broadcast down}. A node at
// depth d sends chunk k to its parent at step k + H - d and receives it back at
// k + H + d - 1; the root sends chunk k down at step k + H, right after reducing it.
std::array<Schedule, 2> tree_allreduce_steps(const BinaryTree& tree, int rank,
                                             const std::vector<Block>& chunks);

// Every schedule of `rank` for a buffer of `count` elements: tree 0 carries the first half
// (partition(count, 2)), tree 1 the second; order {tree 0 up, tree 0 down, tree 1 up,
// tree 1 down}, the same on every rank so the executor's per-schedule tags match.
std::vector<Schedule> dbtree_schedules(int ranks, int rank, std::size_t count,
                                       std::size_t elem_size, std::size_t chunk_bytes);

}  // namespace ddl
