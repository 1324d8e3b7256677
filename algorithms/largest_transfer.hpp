// The largest transfer one rank makes in an allreduce (registry.hpp's TransferFn), for the
// algorithms whose transfers are smaller than the buffer: what the planner compares segment
// sizes with. `options.dims`, when set, is the algorithm's own grid, else it runs on `grid`.
#pragma once

#include <cstddef>

#include "algorithms/dims.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

// ring: a block, bytes / ranks.
std::size_t ring_largest_transfer(const Dims& grid, std::size_t bytes, const Options& options);
// rhd: a half on a power of two; its fix-up for other rank counts sends the whole buffer.
std::size_t rhd_largest_transfer(const Dims& grid, std::size_t bytes, const Options& options);
// ddl: the first piece of a slice, the slice divided by the extent of the dimension it starts in
// (by 2 where that dimension is hd), the largest over the slices' starting dimensions.
std::size_t ddl_largest_transfer(const Dims& grid, std::size_t bytes, const Options& options);

}  // namespace ddl
