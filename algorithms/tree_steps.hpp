// Rooted exchanges inside one group, as schedule steps: broadcast from a root and its mirror
// image, reduce to a root, each as a pipelined chain or a binomial tree (used by
// broadcast_chain, broadcast_binomial and hier's in-node phases).
//
// Positions are relative to the root: member (root_index + k) mod g sits at position k.
// Every member of a group gets the same number of steps (some of them empty), so the schedules
// of a group run in lockstep and every step's sends match its receives. A group of one member
// or an empty range gives an empty schedule.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/schedule.hpp"

namespace ddl {

// Chunks of `range` used when the caller asks for no particular chunk size: enough to overlap
// the chain's fill and drain with useful transfers, few enough that the per-chunk latency
// stays small next to the transfer on the links these chains serve (NVLink inside a node).
inline constexpr std::size_t kDefaultChainChunks = 8;

// The chunks a chain over `members` ranks cuts `range` into, element-aligned and differing by
// at most one element. chunk_bytes > 0: ceil(range / chunk) chunks of at most chunk_bytes
// (rounded down to whole elements, at least one element each). chunk_bytes == 0: one chunk
// for two members (pipelining a single hop only adds latency), else kDefaultChainChunks
// (fewer when there are fewer elements). Empty when the range is empty.
std::vector<Block> chain_chunks(Block range, std::size_t elem_size, std::size_t chunk_bytes,
                                int members);

// Pipelined chain root -> root+1 -> ... -> root+g-1 over c = chain_chunks(...).size() chunks:
// c + g - 2 steps; at step t the member at position k receives chunk t-k+1 from position k-1
// and sends chunk t-k (received the step before) to position k+1.
Schedule chain_broadcast(const Group& group, int root_index, Block range, std::size_t elem_size,
                         std::size_t chunk_bytes, int dimension);
// The mirror image: chunks flow from position g-1 toward the root; at step t the member at
// distance u = g-1-k from the tail sends chunk t-u to position k-1 and receives and reduces
// chunk t-u+1 from position k+1. Afterwards the root holds the reduction of `range`; the other
// members hold partial reductions.
Schedule chain_reduce(const Group& group, int root_index, Block range, std::size_t elem_size,
                      std::size_t chunk_bytes, int dimension);

// ceil(log2 g): the steps of a binomial tree over g members (0 for g <= 1).
int binomial_steps(int members);
// Binomial tree, whole range per step: at step s (distance m = 2^s) each position k < m with
// k + m < g sends to position k + m.
Schedule binomial_broadcast(const Group& group, int root_index, Block range, std::size_t elem_size,
                            int dimension);
// The mirror image: distances g'/2, ..., 2, 1 (g' = 2^ceil(log2 g)); position k + m sends its
// partial reduction to position k, which reduces it. Afterwards the root holds the reduction.
Schedule binomial_reduce(const Group& group, int root_index, Block range, std::size_t elem_size,
                         int dimension);

// Throws InvalidArgument naming the root unless 0 <= root < ranks.
void check_root(int root, int ranks);

}  // namespace ddl
