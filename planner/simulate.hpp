// Confirming candidates by simulation: each size's shortlist runs as one timing-only sweep in a
// child process of its own (SimGrid allows one run of its engine per process; the children
// inherit the loaded platform and run it once each), several children at a time.
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
// children at once; each is killed after `timeout_s` (then BackendError names the size).
// `done(finished, total)` is called after each job.
std::vector<std::vector<double>> simulate_jobs(
    const sim::Platform& platform, const Options& options, const std::vector<SimulationJob>& jobs,
    int parallel, unsigned timeout_s, const std::function<void(std::size_t, std::size_t)>& done);

}  // namespace ddl::planner
