// What a real training iteration pays beyond its compute and its allreduces, as the workload
// driver (workload_driver.hpp) charges it. Each effect is off at 0, so a run without any is the
// ideal overlap model of before; each has one parameter, taken from the workload file, the
// platform or a flag (workloads/README.md says which and where the figures come from).
//
//   jitter        per rank and iteration, every forward and backward layer of that rank takes
//                 f times its nominal time, f lognormal with mean 1 and coefficient of variation
//                 `jitter_cv` (an iteration's kernels run on one GPU under one clock and thermal
//                 state, so they drift together; a straggler iteration is slow as a whole). A
//                 bucket's allreduce cannot finish before its slowest rank has produced it, so
//                 the iteration grows with E[max of p draws]: this is why scaling efficiency
//                 falls with p when nothing else does. The draws are a pure function of
//                 (seed, rank, iteration): a run is deterministic and ranks need not agree.
//   interference  a backward layer that starts while its rank's comm stream has an allreduce in
//                 flight takes (1 + interference) times longer: reduction kernels and copies
//                 share the GPU's memory bandwidth and SMs with compute. Charged per layer at
//                 its start (the discrete model's granularity), not pro rata.
//   bucket launch before each bucket's allreduce the comm stream spends `bucket_launch_s` (the
//                 framework's autograd hook, bucket flattening and the collective's launch);
//                 it delays communication, not compute.
//   data loading  each iteration starts with `data_loading_s` on the compute stream: the input
//                 pipeline's time that prefetching does not hide (a single GPU pays it too).
// A single GPU pays data loading and jitter, never interference or launches (it communicates
// nothing), so scaling efficiency compares against its nominal iteration with data loading.
#pragma once

#include <cstdint>
#include <string>

namespace ddl::harness {

struct TrainingEffects {
  double jitter_cv = 0;
  std::uint64_t seed = 1;
  double interference = 0;
  double bucket_launch_s = 0;
  double data_loading_s = 0;

  bool any() const {
    return jitter_cv > 0 || interference > 0 || bucket_launch_s > 0 || data_loading_s > 0;
  }
  // One line for report headers, e.g. "jitter cv 0.02 (seed 1), interference 0.1"; "none".
  std::string describe() const;
};

// Throws InvalidArgument naming the field for a negative or non-finite value, or a value past
// its limit (jitter_cv <= 1, interference <= 10, launch and loading <= 60 s).
void validate(const TrainingEffects& effects);

// The compute multiplier of `rank` in `iteration`: 1 when jitter is off, else the lognormal
// draw described above (mean 1, coefficient of variation jitter_cv).
double jitter_factor(const TrainingEffects& effects, int rank, int iteration);

}  // namespace ddl::harness
