// Recursive halving / doubling exchanges inside one group whose size is a power of two, as
// schedule steps (used by rhd and by ddl's per-dimension halving-doubling).
#pragma once

#include "algorithms/schedule.hpp"

namespace ddl {

bool is_power_of_two(int n);

// log2(g) steps over `range`, split into g blocks (partition(range, g)). At the step with
// distance m (g/2, g/4, ..., 1) member i exchanges with member i^m: it keeps the half of its
// current block range on its own side of m and sends the other half. Afterwards member i holds
// block i reduced. Throws InvalidArgument when g is not a power of two.
Schedule hd_reduce_scatter(const Group& group, Block range, std::size_t elem_size, int dimension);
// The mirror image: distances 1, 2, ..., g/2; member i starts with block i and ends with all.
Schedule hd_allgather(const Group& group, Block range, std::size_t elem_size, int dimension);

}  // namespace ddl
