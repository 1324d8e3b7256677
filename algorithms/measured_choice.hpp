// auto's choice from measurement: every candidate allreduce timed on the communicator at a
// ladder of sizes, the times agreed over the ranks, and each size's fastest made a plan
// (plan.hpp). Used by backends that have a library of their own (native_library.hpp), where the
// analytical model cannot price one of the candidates and machines of one kind differ by more
// than the choices turn on. Written against Communicator only, so it runs (and is tested) on
// every backend; the MPI backend keeps the result per node (real/mpi/measured_plan_cache.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

struct ProbeSpec {
  Dims grid;                            // the grid the candidates run on (Options::dims)
  std::vector<std::string> candidates;  // algorithm names, in the order ties go
  std::vector<std::size_t> sizes;       // ascending, in bytes, multiples of 4 (float32 sums)
  int repetitions = 9;                  // timed batches per (size, candidate); median of them
  int batch = 1;                        // back-to-back collectives per timed batch
  // The library (`native`) keeps a size unless another candidate is faster by more than this
  // fraction: what the probe's own run-to-run spread can make of a tie, so auto is never the
  // slower for having left the library on a tie.
  double library_margin = 0.05;
};

struct MeasuredSize {
  std::size_t bytes = 0;
  std::vector<double> seconds;  // per candidate (ProbeSpec order): the median batch, each the
                                // slowest rank's
  std::string chosen;
};

struct MeasuredChoice {
  std::vector<std::string> candidates;
  std::vector<MeasuredSize> sizes;
  Plan plan;
};

// Whether a measured plan answers for these options: it was measured with the algorithms'
// defaults (no segments, rings, channels, chunks or methods; near order), so only those.
bool measured_choice_applies(const Options& options);

// The probe's default ladder: 1 KB to 16 MB in steps of 4 (above it, 16 MB's choice holds:
// every candidate is bandwidth-bound there and their order no longer changes with size).
std::vector<std::size_t> probe_sizes();

// The allreduces worth timing on `comm` for `grid`: every registered one except auto, those that
// need memory these ranks do not all share, in-switch reduction the backend lacks, or a library
// it does not have (native needs one that reduces float32), and those the uniform model cannot
// run on the grid (+inf).
std::vector<std::string> probe_candidates(Communicator& comm, const Dims& grid);

// Pure: the fastest candidate per size, the library's margin applied ("native" keeps a size
// where the best is not faster than it by more than `library_margin`); ties go to the earlier
// candidate. `seconds[i][c]`: size i, candidate c.
std::vector<std::string> choose_measured(const std::vector<std::string>& candidates,
                                         const std::vector<std::vector<double>>& seconds,
                                         double library_margin);

// Collective: every rank calls it with the same spec. Times each candidate on a host buffer of
// float32 zeros (sum), so only for backends whose buffers live in host memory (MPI's do):
// each candidate in turn, two untimed runs, then `repetitions` batches of
// `batch` back to back, warm as in a training loop (interleaving the candidates, each run then
// cold, measured ring 1.3x faster and direct 1.4x slower at 1 MB on 2 ranks than a sweep of
// either alone does); a batch starts after a one-element allreduce (ring), so the ranks start
// it together. As a sweep times an iteration (real/mpi/timed_sweep.hpp), a batch's time is the
// slowest rank's (one ring allreduce, max, over all of them at the end) and a candidate's the
// median batch, so every rank sees the same times and makes the same plan. Throws
// InvalidArgument for an empty candidate list or ladder, sizes not ascending or not multiples
// of 4, or repetitions / batch below 1.
MeasuredChoice measure_choice(Communicator& comm, const ProbeSpec& spec);

}  // namespace ddl
