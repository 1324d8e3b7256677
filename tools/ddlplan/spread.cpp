#include "tools/ddlplan/spread.hpp"

#include <string>

#include "algorithms/error.hpp"

namespace ddl::planner {

std::vector<std::vector<double>> spread_jobs(const sim::SweepRanks& ranks,
                                             const std::vector<std::size_t>& widths,
                                             const RunShare& run) {
  const auto n = static_cast<std::size_t>(ranks.size());
  const auto me = static_cast<std::size_t>(ranks.rank());
  std::vector<std::size_t> mine;
  for (std::size_t k = me; k < widths.size(); k += n) mine.push_back(k);
  // One process: its own errors as `run` throws them, no "rank 0:" in front.
  if (n == 1) return run(mine);
  std::vector<double> flat;
  std::string error;
  try {
    for (const std::vector<double>& values : run(mine))
      flat.insert(flat.end(), values.begin(), values.end());
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::vector<std::vector<double>> shares =
      sim::allgather_values(ranks, flat, error.empty() ? nullptr : &error);
  std::vector<std::vector<double>> values(widths.size());
  std::vector<std::size_t> used(n, 0);
  for (std::size_t k = 0; k < widths.size(); ++k) {
    const std::vector<double>& share = shares[k % n];
    std::size_t& at = used[k % n];
    if (at + widths[k] > share.size())
      throw BackendError("rank " + std::to_string(k % n) + " sent too few simulated times");
    values[k].assign(share.begin() + static_cast<std::ptrdiff_t>(at),
                     share.begin() + static_cast<std::ptrdiff_t>(at + widths[k]));
    at += widths[k];
  }
  return values;
}

std::vector<std::vector<double>> simulate_spread(
    const sim::SweepRanks& ranks, const sim::Platform& platform, const Options& options,
    const std::vector<SimulationJob>& jobs, int parallel, unsigned timeout_s,
    const std::function<void(std::size_t, std::size_t)>& done) {
  std::vector<std::size_t> widths;
  for (const SimulationJob& job : jobs) widths.push_back(job.algorithms.size());
  return spread_jobs(ranks, widths, [&](const std::vector<std::size_t>& mine) {
    std::vector<SimulationJob> share;
    for (const std::size_t k : mine) share.push_back(jobs[k]);
    return simulate_jobs(platform, options, share, parallel, timeout_s, done);
  });
}

}  // namespace ddl::planner
