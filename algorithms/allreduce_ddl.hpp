// The pure schedule builder of allreduce_ddl, exposed for tests and for the cost model.
#pragma once

#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// The order in which slice j walks the k dimensions: j mod k, j+1 mod k, ... (rotated so that
// concurrent slices keep different link classes busy at the same time).
std::vector<int> ddl_dimension_order(int slice, int dims);

// One schedule per slice (options.rings of them) for `rank` on grid `dims`, over a buffer of
// `count` elements. Throws InvalidArgument for rings < 1, a methods list whose length is not
// dims.count(), or halving-doubling on a dimension whose extent is not a power of two.
std::vector<Schedule> ddl_schedules(const Dims& dims, int rank, std::size_t count,
                                    std::size_t elem_size, const Options& options);

}  // namespace ddl
