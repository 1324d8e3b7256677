// Ring exchanges inside one group, as schedule steps (used by ring, ddl, hier and the
// standalone reduce_scatter / allgather). Member i sends to member i+1 and receives from i-1.
#pragma once

#include "algorithms/schedule.hpp"

namespace ddl {

// g-1 steps over `range`, split into g blocks (partition(range, g)). At step s member i sends
// block i-s-1 and reduces block i-s-2 received; afterwards member i holds block i reduced.
Schedule ring_reduce_scatter(const Group& group, Block range, std::size_t elem_size,
                             int dimension);
// g-1 steps: member i starts with block i; at step s it sends block i-s and receives block
// i-s-1; afterwards every member holds every block.
Schedule ring_allgather(const Group& group, Block range, std::size_t elem_size, int dimension);

}  // namespace ddl
