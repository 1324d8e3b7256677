#include "tools/ddlrun/workload_mode.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "harness/progress.hpp"
#include "harness/sizes.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/host_pages.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/mpi_error.hpp"
#include "workloads/workload_driver.hpp"
#include "workloads/workload_report.hpp"

namespace po = boost::program_options;

namespace ddl {

namespace {

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The slowest rank's value, on every rank.
double world_max(double mine, double timeout_s) {
  bounded_allreduce(&mine, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, timeout_s,
                    "the MPI_Allreduce of iteration times");
  return mine;
}

// --check: gradients the sum pattern of check_pattern.hpp (small integers, exact in every
// floating type in any order of the sums), parameters 0; after one iteration the gradients hold
// the pattern's allreduce and the parameters (0 + the gradients) the same.
void fill_for_check(MutView gradients, MutView parameters, DType dtype, int rank, int ranks) {
  fill_input(gradients.data, gradients.bytes / dtype_size(dtype), dtype, ReduceOp::sum,
             Collective::allreduce, rank, ranks, 0);
  if (parameters.bytes) std::memset(parameters.data, 0, parameters.bytes);  // 0 in every type
}

unsigned long long wrong_elements(ConstView gradients, ConstView parameters, DType dtype, int rank,
                                  int ranks) {
  const std::size_t count = gradients.bytes / dtype_size(dtype);
  unsigned long long wrong = 0;
  for (ConstView b : {gradients, parameters})
    wrong +=
        check_output(b.data, count, dtype, ReduceOp::sum, Collective::allreduce, rank, ranks, 0)
            .wrong;
  return wrong;
}

std::vector<std::string> header_lines(const WorkloadArguments& w,
                                      const harness::IterationPlan& plan, int ranks,
                                      const Dims& dims, const harness::CommonOptions& common,
                                      Pages pages) {
  double forward = 0;
  for (double s : plan.forward_s) forward += s;
  char scale[32];
  std::snprintf(scale, sizeof scale, "%g", w.compute_scale);
  return {
      "ddlrun: workload " + w.workload.model + " (" + w.file + "), " +
          std::to_string(w.workload.layers.size()) + " layers, " + std::to_string(plan.params) +
          " parameters, batch " + std::to_string(w.batch) + " per GPU",
      "compute scaled by " + std::string(scale) + ": forward " + ms(forward) + ", backward " +
          ms(plan.compute_s() - forward) +
          " of timed busy-wait; the optimizer step (a host reduce of the gradients" +
          " into the weights) and the allreduces are real, unscaled work",
      "compute times before --compute-scale: the workload's, for " +
          (w.workload.reference_gpu ? "a " + harness::reference_field(w.workload)
                                    : std::string("a GPU its file does not name")),
      "gradient buckets: " + std::to_string(plan.buckets.size()) + " (first " +
          harness::format_size(w.buckets.first_bucket_bytes) + ", then " +
          harness::format_size(w.buckets.bucket_bytes) + "), " + std::string(to_string(w.dtype)) +
          " gradients, host memory (" + to_string(pages) + " pages), " + std::to_string(ranks) +
          " ranks, dims " + dims.to_string() +
          ", two MPI communicators per rank (compute and comm threads)",
      "effects (workloads/training_effects.hpp): " + w.effects.describe(),
      "time: median of " + std::to_string(common.iters) + " iterations after " +
          std::to_string(common.warmup) + " warm-ups, each the slowest rank after a barrier" +
          (common.check ? "; --check: every gradient summed exactly once (0 wrong)" : ""),
  };
}

}  // namespace

void init_mpi(int& argc, char**& argv) {
  bool workload = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--workload") == 0 || std::strncmp(argv[i], "--workload=", 11) == 0)
      workload = true;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, workload ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
}

void add_workload_options(po::options_description& desc) {
  harness::add_workload_options(desc);
  desc.add_options()("compute-scale", po::value<double>()->default_value(1.0),
                     "--workload: multiply every layer's compute time by this (e.g. 0.01)");
}

std::optional<WorkloadArguments> read_workload_arguments(const po::variables_map& vm,
                                                         const std::string& workloads_dir) {
  if (!vm.count("workload")) {
    harness::refuse_workload_flags(vm, {"compute-scale"}, "ddlrun");
    return std::nullopt;
  }
  if (vm["memory"].as<std::string>() != "host")
    throw InvalidArgument(
        "--workload runs on host memory only (its compute is a timed busy-wait on the CPU)");
  if (vm.count("baseline")) throw InvalidArgument("--baseline does not go with --workload");
  if (vm["format"].as<std::string>() == "nccl")
    throw InvalidArgument(
        "--format nccl is nccl-tests' table of a collective sweep; a --workload report is table, "
        "csv or json");
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE)
    throw InvalidArgument(
        "--workload needs MPI_THREAD_MULTIPLE (the compute and comm threads of a rank both call "
        "MPI), but this MPI library provides only thread level " +
        std::to_string(level));
  WorkloadArguments w;
  static_cast<harness::WorkloadChoice&>(w) = harness::read_workload_options(vm, workloads_dir);
  w.compute_scale = vm["compute-scale"].as<double>();
  if (!(w.compute_scale > 0) || !std::isfinite(w.compute_scale))
    throw InvalidArgument("--compute-scale must be a positive number, got " +
                          std::to_string(w.compute_scale));
  return w;
}

std::string canonical(const WorkloadArguments& w) {
  std::ostringstream s;
  s << " workload=" << w.file << " batch=" << w.batch << " bucket=" << w.buckets.bucket_bytes
    << " first_bucket=" << w.buckets.first_bucket_bytes << " compute_scale=" << w.compute_scale
    << " effects=" << w.effects.describe() << " dtype=" << to_string(w.dtype);
  return s.str();
}

int run_workload_mode(const WorkloadArguments& w, const harness::CommonOptions& common,
                      const RunSetup& setup, const Dims& dims, bool baseline_mpi,
                      const harness::RunInfo& base, std::ostream& out) {
  DDL_CHECK(!baseline_mpi, "--baseline reached the workload mode");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  harness::IterationPlan plan = harness::plan_iteration(w.workload, w.batch, w.buckets);
  for (double& s : plan.forward_s) s *= w.compute_scale;
  for (double& s : plan.backward_s) s *= w.compute_scale;

  // One communicator (its own MPI_Comm duplicate) per stream: the threads share no state.
  MpiCommunicator compute_comm(MPI_COMM_WORLD, setup.timeout_s);
  MpiCommunicator comm_comm(MPI_COMM_WORLD, setup.timeout_s);
  std::vector<const Algorithm*> algos;
  const std::vector<std::string> names = harness::runnable_algorithms(
      common, shares_memory_with_all(comm_comm), 0, comm_comm.native_library() != nullptr);
  harness::refuse_in_switch(names, comm_comm);
  for (const std::string& name : names) {
    const Algorithm& a = find_algorithm(name);
    if (a.collective != Collective::allreduce)
      throw InvalidArgument("--workload needs allreduce algorithms; '" + name + "' is a " +
                            std::string(to_string(a.collective)));
    algos.push_back(&a);
  }
  // Zeros stay zeros under sums, so timed iterations never grow the values (no overflow).
  // In the pages --pages asks for, as a sweep's buffers.
  const HostBuffer gradient_memory(plan.gradient_bytes, setup.pages);
  const HostBuffer parameter_memory(plan.gradient_bytes, setup.pages);
  const MutView gradients{gradient_memory.data(), plan.gradient_bytes};
  const MutView parameters{parameter_memory.data(), plan.gradient_bytes};

  harness::StreamConfig config;
  config.plan = &plan;
  config.options = harness::algorithm_options(common, dims);
  config.dtype = w.dtype;
  config.gradients = gradients;
  config.parameters = parameters;
  // The effects are emulated here as on the simulator (a jittered busy-wait, a longer one while
  // this rank's allreduce runs, a sleep before each bucket): what the model adds can be run for
  // real, on top of whatever the machine adds by itself.
  config.effects = w.effects;
  std::atomic<int> buckets_pending{0};
  config.buckets_pending = &buckets_pending;
  config.pause = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };

  std::vector<harness::WorkloadRow> rows;
  std::optional<harness::Progress> progress;
  if (rank == 0)
    progress.emplace("ddlrun",
                     algos.size() * static_cast<std::size_t>(common.warmup + common.iters));
  for (const Algorithm* algo : algos) {
    config.algo = algo;
    std::vector<double> iteration_s, compute_s;
    for (int it = 0; it < common.warmup + common.iters; ++it) {
      if (common.check) fill_for_check(gradients, parameters, w.dtype, rank, size);
      bounded_barrier(MPI_COMM_WORLD, setup.timeout_s, false,
                      "the barrier before a workload iteration");
      fault_point("workload");
      const harness::IterationTimes t =
          harness::run_rank_threads(compute_comm, comm_comm, config, 1, {}, setup.timeout_s, it)
              .front();
      const double iteration = world_max(t.iteration_s(), setup.timeout_s);
      // With effects the compute stream's busy time holds the jitter and interference: what
      // one GPU alone would take is the nominal compute (as on the simulator).
      const double compute =
          world_max(w.effects.any() ? t.single_gpu_s : t.compute_s(), setup.timeout_s);
      if (common.check) {
        const unsigned long long mine = wrong_elements(gradients, parameters, w.dtype, rank, size);
        unsigned long long wrong = mine;
        bounded_allreduce(&wrong, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                          setup.timeout_s, "the MPI_Allreduce of wrong counts");
        if (wrong != 0)
          throw Error("--check: " + algo->name + " iteration " + std::to_string(it) + ": " +
                      std::to_string(wrong) +
                      " gradient or parameter elements differ from the exact sum (a bucket "
                      "reduced twice, never, or wrongly)");
      }
      if (progress) progress->step(algo->name + " iteration " + std::to_string(it + 1));
      if (it < common.warmup) continue;
      iteration_s.push_back(iteration);
      compute_s.push_back(compute);
    }
    rows.push_back(
        {size, algo->name, dims.to_string(), w.batch, median(iteration_s), median(compute_s)});
  }
  if (rank == 0) {
    harness::RunInfo info = base;
    info.add("ranks", std::to_string(size));
    info.add("dims", dims.to_string());
    info.add("workload", w.file);
    info.add("sample", w.workload.sample);
    info.add("reference_gpu", harness::reference_field(w.workload));
    info.header = header_lines(w, plan, size, dims, common, setup.pages);
    harness::write_workload_report(out, common.format, rows, info, w.workload.sample);
  }
  return 0;
}

}  // namespace ddl
