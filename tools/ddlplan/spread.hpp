// ddlplan under mpirun (`mpirun -np N ddlplan ...`): every rank prices the same candidates
// (pricing is deterministic) and simulates its share of each stage's sizes (size k on rank k
// mod N, with its own --jobs children); the times are exchanged so every rank goes on with all
// of them, and rank 0 reports progress and writes the plan: the same file as one process writes.
// The layout search (--workload) shares its candidates out the same way.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "planner/simulate.hpp"
#include "tools/sim_ranks/sweep_mpi.hpp"

namespace ddl::planner {

// Job k of widths.size() runs on rank k mod N: `run` is given this rank's job indices, in order,
// and returns each one's values (widths[k] of them for job k). Every rank returns every job's
// values. A rank whose share failed fails every rank (sim::allgather_values). One rank: `run`
// over every job, its errors as it throws them.
using RunShare = std::function<std::vector<std::vector<double>>(const std::vector<std::size_t>&)>;
std::vector<std::vector<double>> spread_jobs(const sim::SweepRanks& ranks,
                                             const std::vector<std::size_t>& widths,
                                             const RunShare& run);

// Simulates this rank's share of `jobs` (planner/simulate.hpp) and returns every job's times,
// from all ranks. `done` counts this rank's share. One rank: simulate_jobs itself.
std::vector<std::vector<double>> simulate_spread(
    const sim::SweepRanks& ranks, const sim::Platform& platform, const Options& options,
    const std::vector<SimulationJob>& jobs, int parallel, unsigned timeout_s,
    const std::function<void(std::size_t, std::size_t)>& done);

}  // namespace ddl::planner
