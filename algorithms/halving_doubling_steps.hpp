// Recursive halving / doubling exchanges inside one group whose size is a power of two, as
// schedule steps (used by rhd and by ddl's per-dimension halving-doubling).
#pragma once

#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

bool is_power_of_two(int n);

// The distances of the reduce-scatter's steps, in order: near = 1, 2, ..., g/2 (MPICH's
// Rabenseifner: with node-major ranks the largest halves stay on the fastest links), far =
// g/2, ..., 1. The allgather walks them back.
std::vector<int> hd_distances(int group_size, HdOrder order);

// The block (of partition(range, g)) member `member` holds reduced after hd_reduce_scatter:
// `member` for far, its bits reversed (log2 g of them) for near.
int hd_owned_block(int member, int group_size, HdOrder order);

// log2(g) steps over `range`, split into g blocks (partition(range, g)). At each step, at
// distance m (hd_distances), member i exchanges with member i^m: both hold the same run of
// blocks; it keeps the half on its side (bit m of i set: the upper half) and sends the other.
// Afterwards member i holds block hd_owned_block(i) reduced. Throws InvalidArgument when g is
// not a power of two.
Schedule hd_reduce_scatter(const Group& group, Block range, std::size_t elem_size, int dimension,
                           HdOrder order);
// The mirror image (distances reversed): member i starts with block hd_owned_block(i) and ends
// with all.
Schedule hd_allgather(const Group& group, Block range, std::size_t elem_size, int dimension,
                      HdOrder order);

}  // namespace ddl
