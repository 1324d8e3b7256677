// Analytical α-β-γ cost of each algorithm, as plain functions of the grid, the per-dimension
// link costs and the reduction cost. Used by `auto` (argmin) and printed beside every measured
// or simulated time, so model, simulation and measurement sit side by side.
//
//   α  latency of one message on a link class (s)
//   β  time per byte on that link class (s/B, i.e. 1 / bandwidth)
//   γ  time per byte of reduction result (s/B)
//   S  bytes of the whole buffer, p ranks, d_i the extent of dimension i
// With CostParams::message each message pays α and β of its own size; with
// CostParams::peer_read the receives that land in bytes the receiver sent earlier in the same
// allreduce (its second half) take that many times their own time.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

// Predicted time of algorithm `name` (a registered allreduce, reduce_scatter, allgather or
// broadcast algorithm) for a buffer of `bytes` on grid `dims`. Throws InvalidArgument for an
// unknown name or a per_dim size that differs from dims.count().
double model_time(std::string_view name, const Dims& dims, const CostParams& params,
                  std::size_t bytes, const Options& options);

// The allreduce algorithm with the least model_time (excluding auto itself).
std::string best_allreduce(const Dims& dims, const CostParams& params, std::size_t bytes,
                           const Options& options);

// The figures `auto` assumes when it is given none: every dimension 1 us and 10 GB/s,
// reduction at 100 GB/s.
CostParams uniform_costs(const Dims& dims);

}  // namespace ddl
