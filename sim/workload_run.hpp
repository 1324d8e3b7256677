// Training iterations on the simulator: the harness's workload driver
// (workloads/workload_driver.hpp) on SimGrid. Each rank gets two actors on its GPU host, "rankR"
// (compute stream) and "rankR-comm" (comm stream), each with its own SimCommunicator of rank R,
// handing buckets over through SimGrid semaphores. compute() is an Exec on the GPU host while the
// comm actor's reductions are memory-time sleeps, so the two overlap without sharing the host's
// flops (a simplification: on a real GPU reduction kernels and compute kernels contend; the
// effects' `interference` charges that, training_effects.hpp).
//
// Every iteration starts with all compute actors leaving one barrier together; its time is the
// latest rank's end minus that start; an algorithm's result is the mean over its timed
// iterations. Algorithms run one after the other in the same simulation.
#pragma once

#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace ddl::sim {

struct WorkloadRunConfig {
  harness::IterationPlan plan;
  std::vector<std::string> algos;  // allreduce algorithms
  Options options;
  harness::TrainingEffects effects;
  DType dtype = DType::float32;  // of the gradients
  int iters = 1;
  int warmup = 0;
};

struct WorkloadResult {
  std::string algo;
  double iteration_s = 0;  // mean over timed iterations of the slowest rank
  double compute_s = 0;    // the same for what one GPU alone takes (IterationTimes::single_gpu_s)
};

// Runs the engine (once per process), timing-only. Errors as run_sweep.
std::vector<WorkloadResult> run_workload(const Platform& platform, const WorkloadRunConfig& config);

}  // namespace ddl::sim
