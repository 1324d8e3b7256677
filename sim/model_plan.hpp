// auto's choices on a loaded platform: per size, the allreduce with the least contention-aware
// price over the platform's routes (RouteTopology) and its α-β-γ figures at that size
// (platform_costs with the footprint), as a plan (algorithms/plan.hpp) that `auto` then runs.
// Each size is priced once here, not by every simulated rank.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/plan.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/topology.hpp"
#include "sim/platform.hpp"

namespace ddl::sim {

// The contention-aware price of `algo` (a name or algorithm string) for `bytes` on `dims`.
double platform_model_time(const Platform& platform, const Topology& topology, const Dims& dims,
                           const std::string& algo, std::size_t bytes, const Options& options);

// The plan of the argmins over `sizes` (ascending), among the algorithms of `collective`.
std::shared_ptr<const Plan> model_plan(const Platform& platform, const Topology& topology,
                                       const Dims& dims, const std::vector<std::size_t>& sizes,
                                       const Options& options,
                                       Collective collective = Collective::allreduce);

// "auto picks (BASIS): rhd for 8..512K, ddl for 1M..256M" for the report's header.
std::string describe_plan(const Plan& plan, const std::string& basis);

}  // namespace ddl::sim
