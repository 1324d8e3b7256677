// ddlrun's measurement loop. For every (size, algorithm): -w untimed iterations, then -n timed
// ones; each iteration starts after a barrier and its time is the slowest rank's elapsed time
// (MPI_Allreduce MAX), and the case's time is the median over the timed iterations (robust to
// the noisy neighbours of a shared machine). --check refills the input before every iteration
// and counts wrong elements after the last, summed over ranks. The MPI_Allreduce baseline runs
// the same way on the same buffer, once per size.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/registry.hpp"
#include "harness/sweep_cases.hpp"
#include "real/mpi/buffer_space.hpp"

namespace ddl {

// ddlrun's -n and -w defaults: real runs vary from one iteration to the next.
inline harness::SweepCases timed_sweep_defaults() {
  harness::SweepCases cases;
  cases.iters = 20;
  cases.warmup = 5;
  return cases;
}

struct TimedCase;

struct TimedSweepConfig {
  // Algorithms x sizes, type, op, -n, -w, --check, options.
  harness::SweepCases cases = timed_sweep_defaults();
  bool baseline_mpi = false;
  // What the baseline times: the MPI collective of this one (mpi_baseline.hpp).
  Collective baseline_collective = Collective::allreduce;
  double timeout_s = 300;  // bounds the barriers too
  // More ranks on a node than it has cores: ranks waiting around an iteration sleep instead of
  // spinning (see time_iterations). Not otherwise: a sleeping core wakes up slower.
  bool oversubscribed = false;
  // Called before each iteration of an algorithm (not of the baseline), ahead of its barrier:
  // the algorithm, the buffer's bytes, and the iteration (warm-ups -w..-1, then 0..n-1). The
  // trace uses it to label the events that follow.
  std::function<void(const std::string& algo, std::size_t bytes, int iteration)> on_iteration;
  // Called on rank 0 after each case, with its row (what run_timed_sweep returns): ddlrun prints
  // it at once.
  std::function<void(const TimedCase&)> on_case;
};

struct TimedCase {
  std::string algo;
  std::size_t bytes = 0;
  bool out_of_place = false;  // cases.out_of_place_too: the out-of-place call (before in place)
  double time_s = 0;
  std::optional<std::size_t> wrong;
  std::optional<double> mpi_time_s;  // absent when MPI has no such datatype or buffer access
};

// Why the MPI baseline cannot run for this configuration, or nothing when it can.
std::optional<std::string> baseline_unavailable(DType type, const BufferSpace& space,
                                                std::size_t max_bytes);

std::vector<TimedCase> run_timed_sweep(Communicator& comm, MPI_Comm world, BufferSpace& space,
                                       const TimedSweepConfig& config);

}  // namespace ddl
