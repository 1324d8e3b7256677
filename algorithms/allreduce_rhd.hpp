// The pure schedule builder of allreduce_rhd, exposed for tests and for the cost model.
#pragma once

#include <cstddef>

#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// Largest power of two <= ranks (ranks >= 1): the ranks that run halving-doubling.
int rhd_survivors(int ranks);

// The whole rhd schedule of `rank` among `ranks` over a buffer of `count` elements:
// one fold step (only when ranks is not a power of two), log2 p' halving steps, log2 p'
// doubling steps (distances in `order`), one unfold step. Every rank gets the same number of steps;
// a folded-away rank's middle steps are empty.
Schedule rhd_schedule(int ranks, int rank, std::size_t count, std::size_t elem_size, HdOrder order);

}  // namespace ddl
