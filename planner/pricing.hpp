// The planner's prices: the contention-aware model (algorithms/cost_model.hpp) over a
// platform's routes, at every planned size, on the machine grid. Pricing is pure once the routes
// and each size's cost parameters are known, so it runs on several threads.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/topology.hpp"

namespace ddl::sim {
struct Platform;
class RouteTopology;
}  // namespace ddl::sim

namespace ddl::planner {

struct Pricing {
  Dims dims;                                 // the machine grid
  Options options;                           // what every candidate runs with: dims, cost
  std::map<std::size_t, CostParams> params;  // per planned size (footprint-dependent factors)
  const Topology* topology = nullptr;        // routes with contention; null: link classes only
  int threads = 1;
  Collective collective = Collective::allreduce;  // whose algorithms are priced

  // `algo`'s model time (s) at `bytes`, a planned size.
  double price(const std::string& algo, std::size_t bytes) const;
  // (price, algorithm) of each of `algos` at `bytes`, ascending (equal prices by string).
  std::vector<std::pair<double, std::string>> price_all(const std::vector<std::string>& algos,
                                                        std::size_t bytes) const;
  // The plain α-β-γ model's argmin over the collective's registered algorithms at `bytes` (no
  // routes).
  std::string alpha_beta_choice(std::size_t bytes) const;
};

// The prices on `platform` over `topology`'s routes (fetched here, before any thread prices),
// on the grid `dims`, at `sizes`, with `threads` threads. `topology` must outlive the result.
Pricing platform_pricing(const sim::Platform& platform, const sim::RouteTopology& topology,
                         const Dims& dims, const std::vector<std::size_t>& sizes, int threads);

}  // namespace ddl::planner
