#include "sim/model_plan.hpp"

#include "algorithms/cost_model.hpp"
#include "harness/sizes.hpp"
#include "sim/platform_costs.hpp"

namespace ddl::sim {

double platform_model_time(const Platform& platform, const Topology& topology, const Dims& dims,
                           const std::string& algo, std::size_t bytes, const Options& options) {
  // Per size: on a calibrated platform α, β and γ depend on it (platform_costs).
  return model_time(algo, dims, platform_costs(platform, dims, static_cast<double>(bytes)), bytes,
                    options, &topology);
}

std::shared_ptr<const Plan> model_plan(const Platform& platform, const Topology& topology,
                                       const Dims& dims, const std::vector<std::size_t>& sizes,
                                       const Options& options, Collective collective) {
  std::vector<std::string> choices;
  for (const std::size_t bytes : sizes)
    choices.push_back(best_algorithm(collective, dims,
                                     platform_costs(platform, dims, static_cast<double>(bytes)),
                                     bytes, options, &topology));
  return std::make_shared<const Plan>(
      plan_from_choices(platform.ranks(), sizes, choices, collective));
}

std::string describe_plan(const Plan& plan, const std::string& basis) {
  std::string out = "auto picks (" + basis + "):";
  for (std::size_t i = 0; i < plan.entries.size(); ++i) {
    const PlanEntry& e = plan.entries[i];
    out += (i ? ", " : " ") + e.algorithm + " for " + harness::format_size(e.min_bytes) +
           (e.max_bytes > e.min_bytes ? ".." + harness::format_size(e.max_bytes) : "");
  }
  return out;
}

}  // namespace ddl::sim
