#include "tools/ddlplan/spread.hpp"

#include <string>

#include "algorithms/error.hpp"

namespace ddl::planner {

std::vector<std::vector<double>> simulate_spread(
    const sim::SweepRanks& ranks, const sim::Platform& platform, const Options& options,
    const std::vector<SimulationJob>& jobs, int parallel, unsigned timeout_s,
    const std::function<void(std::size_t, std::size_t)>& done) {
  // One process: its own errors as simulate_jobs throws them, no "rank 0:" in front.
  if (ranks.size() == 1) return simulate_jobs(platform, options, jobs, parallel, timeout_s, done);
  const auto n = static_cast<std::size_t>(ranks.size());
  const auto me = static_cast<std::size_t>(ranks.rank());
  std::vector<SimulationJob> mine;
  for (std::size_t k = me; k < jobs.size(); k += n) mine.push_back(jobs[k]);
  std::vector<double> flat;
  std::string error;
  try {
    for (const std::vector<double>& t :
         simulate_jobs(platform, options, mine, parallel, timeout_s, done))
      flat.insert(flat.end(), t.begin(), t.end());
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::vector<std::vector<double>> shares =
      sim::allgather_values(ranks, flat, error.empty() ? nullptr : &error);
  std::vector<std::vector<double>> times(jobs.size());
  std::vector<std::size_t> used(n, 0);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const std::vector<double>& share = shares[k % n];
    std::size_t& at = used[k % n];
    const std::size_t count = jobs[k].algorithms.size();
    if (at + count > share.size())
      throw BackendError("rank " + std::to_string(k % n) + " sent too few simulated times");
    times[k].assign(share.begin() + static_cast<std::ptrdiff_t>(at),
                    share.begin() + static_cast<std::ptrdiff_t>(at + count));
    at += count;
  }
  return times;
}

}  // namespace ddl::planner
