// The pure schedule builder of allreduce_rhd, exposed for tests and for the cost model.
#pragma once

#include <cstddef>

#include "algorithms/redistribute.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// Largest power of two <= ranks (ranks >= 1): the ranks that run halving-doubling.
int rhd_survivors(int ranks);

// Whether `rank` is one of the survivors (else it is folded into rank + 1), and the survivors'
// group in new-rank order with `rank`'s place in it (its new rank when it survives).
bool rhd_survives(int ranks, int rank);
Group rhd_group(int ranks, int rank);
// The fix-up of p not a power of two, `rank`'s part (empty outside the folded pairs): the fold,
// where rank 2j sends `all` to 2j+1, which reduces it, and the unfold, where 2j+1 sends it back.
Step rhd_fold(int ranks, int rank, Block all);
Step rhd_unfold(int ranks, int rank, Block all);

// What every rank holds reduced after the survivors' halving (order `order`): each survivor its
// block of partition(count, p'), the folded ranks nothing (redistribute.hpp).
Holdings rhd_holdings(int ranks, std::size_t count, std::size_t elem_size, HdOrder order);

// The whole rhd schedule of `rank` among `ranks` over a buffer of `count` elements:
// one fold step (only when ranks is not a power of two), log2 p' halving steps, log2 p'
// doubling steps (distances in `order`), one unfold step. Every rank gets the same number of steps;
// a folded-away rank's middle steps are empty.
Schedule rhd_schedule(int ranks, int rank, std::size_t count, std::size_t elem_size, HdOrder order);

}  // namespace ddl
