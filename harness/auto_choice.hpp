// What `auto` runs, said ahead of or beside the run: the table header's summary per size range,
// and each row's `chosen` cell. The choice is made as allreduce_auto makes it
// (algorithms/allreduce_auto.cpp), from the same inputs, so it names what ran.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/registry.hpp"

namespace ddl::harness {

// The algorithm string `collective`'s auto runs for a buffer of `bytes` on `ranks` ranks: the
// plan's entry (Options::plan, a plan of that collective), else the cost model's argmin over
// Options::cost, else over a uniform network marked as shared memory when `shared_memory` (with
// messages from `eager_limit` bytes by rendezvous; 0: none), as the communicator would say.
std::string auto_choice(const Options& options, int ranks, std::size_t bytes, bool shared_memory,
                        std::size_t eager_limit, Collective collective = Collective::allreduce);

// What ran for a row of `algo`: auto_choice for an auto (`auto`, `alltoall_auto`, ...), `algo`
// itself for any other.
std::string algorithm_run(const std::string& algo, const Options& options, int ranks,
                          std::size_t bytes, bool shared_memory, std::size_t eager_limit);

// "auto picks (cost model, <basis>): rhd for 8..512K, ddl for 1M..256M": what `auto` runs at
// each size of the sweep, for the table header; empty when `algos` holds no "auto".
std::string auto_choices(const std::vector<std::string>& algos,
                         const std::vector<std::size_t>& sizes, const Dims& dims,
                         const CostParams& costs, const Options& options, const std::string& basis);

// "auto picks (<basis>): direct for 1K..4K, native for 16K..": what a plan runs at each size of
// the sweep.
std::string plan_choices(const Plan& plan, const std::vector<std::size_t>& sizes,
                         const std::string& basis);

}  // namespace ddl::harness
