#include "harness/auto_choice.hpp"

#include <algorithm>

#include "algorithms/cost_model.hpp"
#include "algorithms/plan.hpp"
#include "harness/sizes.hpp"

namespace ddl::harness {

std::string auto_choice(const Options& options, int ranks, std::size_t bytes, bool shared_memory,
                        std::size_t eager_limit) {
  if (options.plan) return options.plan->entry_for(bytes).algorithm;
  const Dims dims = effective_dims(options, ranks);
  if (!options.cost.per_dim.empty()) return best_allreduce(dims, options.cost, bytes, options);
  CostParams costs = uniform_costs(dims);
  if (shared_memory) mark_shared_memory(costs, eager_limit);
  return best_allreduce(dims, costs, bytes, options);
}

std::string algorithm_run(const std::string& algo, const Options& options, int ranks,
                          std::size_t bytes, bool shared_memory, std::size_t eager_limit) {
  return algo == "auto" ? auto_choice(options, ranks, bytes, shared_memory, eager_limit) : algo;
}

std::string auto_choices(const std::vector<std::string>& algos,
                         const std::vector<std::size_t>& sizes, const Dims& dims,
                         const CostParams& costs, const Options& options,
                         const std::string& basis) {
  if (std::find(algos.begin(), algos.end(), "auto") == algos.end() || sizes.empty()) return "";
  // Runs of consecutive sizes with the same choice: "rhd for 8..512K".
  std::string out = "auto picks (cost model, " + basis + "):";
  std::size_t first = 0;
  for (std::size_t i = 1; i <= sizes.size(); ++i) {
    const std::string pick = best_allreduce(dims, costs, sizes[first], options);
    if (i < sizes.size() && best_allreduce(dims, costs, sizes[i], options) == pick) continue;
    out += (first ? ", " : " ") + pick + " for " + format_size(sizes[first]) +
           (i - 1 > first ? ".." + format_size(sizes[i - 1]) : "");
    first = i;
  }
  return out;
}

}  // namespace ddl::harness
