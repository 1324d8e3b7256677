#include "harness/auto_choice.hpp"

#include <algorithm>
#include <functional>

#include "algorithms/cost_model.hpp"
#include "algorithms/plan.hpp"
#include "harness/sizes.hpp"

namespace ddl::harness {

std::string auto_choice(const Options& options, int ranks, std::size_t bytes, bool shared_memory,
                        std::size_t eager_limit, Collective collective) {
  if (options.plan && options.plan->collective == collective)
    return options.plan->entry_for(bytes).algorithm;
  const Dims dims = effective_dims(options, ranks);
  if (!options.cost.per_dim.empty())
    return best_algorithm(collective, dims, options.cost, bytes, options);
  CostParams costs = uniform_costs(dims);
  if (shared_memory) mark_shared_memory(costs, eager_limit);
  return best_algorithm(collective, dims, costs, bytes, options);
}

std::string algorithm_run(const std::string& algo, const Options& options, int ranks,
                          std::size_t bytes, bool shared_memory, std::size_t eager_limit) {
  const Algorithm& a = find_algorithm(algo);
  return a.picks_others
             ? auto_choice(options, ranks, bytes, shared_memory, eager_limit, a.collective)
             : algo;
}

namespace {

// "<prefix> rhd for 8..512K, ddl for 1M..256M": runs of consecutive sizes with the same pick.
std::string ranges(std::string out, const std::vector<std::size_t>& sizes,
                   const std::function<std::string(std::size_t)>& pick_for) {
  std::size_t first = 0;
  for (std::size_t i = 1; i <= sizes.size(); ++i) {
    const std::string pick = pick_for(sizes[first]);
    if (i < sizes.size() && pick_for(sizes[i]) == pick) continue;
    out += (first ? ", " : " ") + pick + " for " + format_size(sizes[first]) +
           (i - 1 > first ? ".." + format_size(sizes[i - 1]) : "");
    first = i;
  }
  return out;
}

}  // namespace

std::string auto_choices(const std::vector<std::string>& algos,
                         const std::vector<std::size_t>& sizes, const Dims& dims,
                         const CostParams& costs, const Options& options,
                         const std::string& basis) {
  if (std::find(algos.begin(), algos.end(), "auto") == algos.end() || sizes.empty()) return "";
  return ranges("auto picks (cost model, " + basis + "):", sizes,
                [&](std::size_t bytes) { return best_allreduce(dims, costs, bytes, options); });
}

std::string plan_choices(const Plan& plan, const std::vector<std::size_t>& sizes,
                         const std::string& basis) {
  if (sizes.empty()) return "";
  return ranges("auto picks (" + basis + "):", sizes,
                [&](std::size_t bytes) { return plan.entry_for(bytes).algorithm; });
}

}  // namespace ddl::harness
