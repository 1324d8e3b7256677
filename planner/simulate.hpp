// Confirming candidates by simulation: each size's candidates run as one timing-only sweep
// (sim/sweep.hpp) in a child process of its own (sim/isolated.hpp: the children inherit the
// loaded platform and each runs the engine once), several children at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "sim/platform.hpp"

namespace ddl::planner {

struct SimulationJob {
  std::size_t bytes = 0;
  std::vector<std::string> algorithms;
};

// Per job, the simulated time (s) of each of its algorithms, in order. At most `parallel`
// children at once; each is killed after `timeout_s`; an error names the size ("simulating 8 B:
// ..."). `done(finished, total)` is called after each job.
std::vector<std::vector<double>> simulate_jobs(
    const sim::Platform& platform, const Options& options, const std::vector<SimulationJob>& jobs,
    int parallel, unsigned timeout_s, const std::function<void(std::size_t, std::size_t)>& done);

}  // namespace ddl::planner
