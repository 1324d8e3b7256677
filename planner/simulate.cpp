#include "planner/simulate.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "sim/isolated.hpp"
#include "sim/sweep.hpp"

namespace ddl::planner {

std::vector<std::vector<double>> simulate_jobs(
    const sim::Platform& platform, const Options& options, const std::vector<SimulationJob>& jobs,
    int parallel, unsigned timeout_s, const std::function<void(std::size_t, std::size_t)>& done) {
  std::vector<sim::IsolatedJob> isolated;
  for (const SimulationJob& job : jobs) {
    const std::string what = "simulating " + std::to_string(job.bytes) + " B";
    isolated.push_back({what, [&platform, &options, &job, what] {
                          try {
                            sim::SweepConfig config;
                            config.algos = job.algorithms;
                            config.sizes = {job.bytes};
                            config.options = options;
                            nlohmann::json times = nlohmann::json::array();
                            for (const sim::CaseResult& r : sim::run_sweep(platform, config))
                              times.push_back(r.time_s);
                            return times.dump();
                          } catch (const std::exception& e) {
                            throw BackendError(what + ": " + e.what());
                          }
                        }});
  }
  const std::vector<std::string> results =
      sim::run_isolated(isolated, static_cast<std::size_t>(std::max(parallel, 1)), timeout_s, done);
  std::vector<std::vector<double>> times(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    times[k] = nlohmann::json::parse(results[k]).get<std::vector<double>>();
    if (times[k].size() != jobs[k].algorithms.size())
      throw BackendError("simulating " + std::to_string(jobs[k].bytes) + " B gave " +
                         std::to_string(times[k].size()) + " times for " +
                         std::to_string(jobs[k].algorithms.size()) + " algorithms");
  }
  return times;
}

}  // namespace ddl::planner
