// The pure schedule builder of allreduce_rd, exposed for tests and for the cost model.
#pragma once

#include <cstddef>

#include "algorithms/schedule.hpp"

namespace ddl {

// The whole rd schedule of `rank` among `ranks` over a buffer of `count` elements: one fold
// step (only when ranks is not a power of two), log2 p' whole-buffer exchanges (distances 1,
// 2, ..., p'/2), one unfold step. Every rank gets the same number of steps; a folded-away
// rank's middle steps are empty.
Schedule rd_schedule(int ranks, int rank, std::size_t count, std::size_t elem_size);

}  // namespace ddl
