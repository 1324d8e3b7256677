#include "planner/pricing.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "algorithms/cost_model.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/route_topology.hpp"

namespace ddl::planner {

double Pricing::price(const std::string& algo, std::size_t bytes) const {
  return model_time(algo, dims, params.at(bytes), bytes, options, topology);
}

std::vector<std::pair<double, std::string>> Pricing::price_all(
    const std::vector<std::string>& algos, std::size_t bytes) const {
  std::vector<std::pair<double, std::string>> priced(algos.size());
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_lock;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next++) < algos.size();)
        priced[i] = {price(algos[i], bytes), algos[i]};
    } catch (...) {
      const std::lock_guard<std::mutex> guard(error_lock);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& t : workers) t.join();
  if (error) std::rethrow_exception(error);
  std::sort(priced.begin(), priced.end());
  return priced;
}

std::string Pricing::alpha_beta_choice(std::size_t bytes) const {
  return best_algorithm(collective, dims, params.at(bytes), bytes, options);
}

Pricing platform_pricing(const sim::Platform& platform, const sim::RouteTopology& topology,
                         const Dims& dims, const std::vector<std::size_t>& sizes, int threads) {
  Pricing pricing;
  pricing.dims = dims;
  pricing.options.dims = dims;
  pricing.options.cost = sim::platform_costs(platform, dims);
  topology.prefetch();
  for (const std::size_t bytes : sizes)
    pricing.params.emplace(bytes, sim::platform_costs(platform, dims, static_cast<double>(bytes)));
  pricing.topology = &topology;
  pricing.threads = threads;
  return pricing;
}

}  // namespace ddl::planner
