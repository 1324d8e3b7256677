// The analytical cost model's pick of an algorithm (cost_model.hpp: best_algorithm), remembered:
// every rank of an auto collective asks the same question, a training run asks it per bucket,
// and pricing builds every rank's schedules. Shared by the allreduce's auto and the other
// collectives' (collective_auto.cpp).
#pragma once

#include <cstddef>

#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

// best_algorithm(collective, dims, params, bytes, options), remembered where the figures are
// plain numbers (no per-size or peer-read callbacks, no in-switch figures).
const Algorithm& model_choice(Collective collective, const Dims& dims, const CostParams& params,
                              std::size_t bytes, const Options& options);

}  // namespace ddl
