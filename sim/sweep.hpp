// One simulation for a whole sweep: one actor per rank loops over every (size, algorithm)
// case, so the process needs only its one SimGrid Engine. Every iteration starts with all
// ranks released together from a barrier; its time is the latest rank's end minus that
// common start; a case's time is the mean over its timed iterations. The simulator is
// deterministic, so one iteration and no warmup is the default and the mean equals each one.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "harness/sweep_cases.hpp"
#include "harness/trace.hpp"
#include "sim/platform.hpp"

namespace ddl::sim {

// What to run (harness/sweep_cases.hpp); `check` is payload mode: real data moves and is
// checked (#wrong), else timing-only.
using SweepConfig = harness::SweepCases;

struct CaseResult {
  std::string algo;
  std::size_t bytes = 0;
  bool out_of_place = false;
  double time_s = 0;
  std::optional<std::size_t> wrong;  // payload mode only: wrong elements summed over ranks
};

// Called by rank 0's actor after it finishes each case (done of total), for progress output.
using SweepProgress = std::function<void(std::size_t done, std::size_t total,
                                         const std::string& algo, std::size_t bytes)>;

// Called once per case as soon as every rank is done with it, so a tool can print its row before
// the sweep ends: the case's index in the list run and its result. Cases finish in list order
// (each starts with every rank released from one barrier).
using CaseDone = std::function<void(std::size_t index, const CaseResult& result)>;

// Runs the engine (once per process). Cases are ordered size-major, algorithms inner. The
// first error of any rank is rethrown here after the others were stopped; ranks that never
// finish (a deadlocked schedule) give a BackendError. With `trace`, every rank's operations
// in every iteration (warm-ups too) are appended to it, rank by rank, in simulated time.
std::vector<CaseResult> run_sweep(const Platform& platform, const SweepConfig& config,
                                  const SweepProgress& progress = {},
                                  std::vector<harness::TraceEvent>* trace = nullptr,
                                  const CaseDone& done = {});

// The same for some of the sweep's cases only (config.each() is all of them), in the order
// given: a share of a sweep spread over processes (sweep_mpi.hpp). `progress` counts these.
std::vector<CaseResult> run_cases(const Platform& platform, const SweepConfig& config,
                                  const std::vector<harness::SweepCase>& cases,
                                  const SweepProgress& progress = {},
                                  std::vector<harness::TraceEvent>* trace = nullptr,
                                  const CaseDone& done = {});

}  // namespace ddl::sim
