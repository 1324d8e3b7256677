// The pure schedule builder of allreduce_ddl, exposed for tests and for the cost model.
#pragma once

#include <vector>

#include "algorithms/redistribute.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// The order in which slice j walks the k dimensions: j mod k, j+1 mod k, ... (rotated so that
// concurrent slices keep different link classes busy at the same time).
std::vector<int> ddl_dimension_order(int slice, int dims);

// The pieces of `range` that `rank` works on along slice `slice`'s order: `range` itself, then
// the piece it holds reduced after each dimension's reduce-scatter (k + 1 of them).
std::vector<Block> ddl_pieces(const Dims& dims, int rank, int slice, Block range,
                              std::size_t elem_size, const Options& options);

// The 2k phases (reduce-scatters along slice `slice`'s order, then allgathers back) of `rank`
// on grid `dims` over `range` of the buffer.
std::vector<Schedule> ddl_phases(const Dims& dims, int rank, int slice, Block range,
                                 std::size_t elem_size, const Options& options);

// One schedule per chunk of each slice (options.rings x options.chunks of them, slice-major)
// for `rank` on grid `dims`, over a buffer of `count` elements. Throws InvalidArgument for
// rings < 1, chunks < 1, a methods list whose length is not dims.count(), or halving-doubling
// on a dimension whose extent is not a power of two.
std::vector<Schedule> ddl_schedules(const Dims& dims, int rank, std::size_t count,
                                    std::size_t elem_size, const Options& options);

// One half of ddl on its own, per slice one schedule (one chunk per slice): the k reduce-scatter
// phases (reduce_scatter) or the k allgather phases (else). `name` (the algorithm) is in the
// InvalidArgument for chunks > 1: chunks pipeline the allreduce's two halves.
std::vector<Schedule> ddl_half_schedules(const Dims& dims, int rank, std::size_t count,
                                         std::size_t elem_size, const Options& options,
                                         bool reduce_scatter, const char* name);

// What every rank holds reduced after the reduce-scatter phases of every slice (one chunk per
// slice): the pieces reduce_scatter_ddl hands on to the blocks' owners (redistribute.hpp).
Holdings ddl_holdings(const Dims& dims, std::size_t count, std::size_t elem_size,
                      const Options& options);

// The gates of ddl_schedules' pipeline (schedule.hpp): none for one chunk (a lockstep play);
// else chunk k of a slice starts once chunk k-1 has played its first phase.
std::vector<Gate> ddl_gates(const Dims& dims, const Options& options);

}  // namespace ddl
