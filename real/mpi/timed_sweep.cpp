#include "real/mpi/timed_sweep.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>

#include "algorithms/check_pattern.hpp"
#include "algorithms/collective_input.hpp"
#include "algorithms/error.hpp"
#include "harness/progress.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_baseline.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/mpi_datatypes.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

MutView HostSpace::allocate(std::size_t bytes) {
  buffers_.emplace_back(bytes, pages_);  // zeroed: every page touched now, outside timed regions
  return {buffers_.back().data(), bytes};
}

void HostSpace::upload(MutView dst, const void* host) {
  if (dst.bytes > 0) std::memcpy(dst.data, host, dst.bytes);
}

void HostSpace::download(void* host, ConstView src) {
  if (src.bytes > 0) std::memcpy(host, src.data, src.bytes);
}

namespace {

constexpr const char* kBarrier = "the barrier around an iteration";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs body() -w + -n times, each after a barrier, and returns the median of the per-iteration
// maxima over ranks. before() runs ahead of each barrier (pattern refills stay untimed).
template <typename Before, typename Body>
double time_iterations(Communicator& comm, MPI_Comm world, const TimedSweepConfig& cfg,
                       Before&& before, Body&& body) {
  std::vector<double> elapsed(static_cast<std::size_t>(cfg.cases.iters));
  for (int it = 0; it < cfg.cases.warmup + cfg.cases.iters; ++it) {
    before();
    // On an oversubscribed node, ranks that finish before() early sleep until all have; the
    // second barrier, polled at full speed, starts them together.
    if (cfg.oversubscribed) bounded_barrier(world, cfg.timeout_s, true, kBarrier);
    bounded_barrier(world, cfg.timeout_s, false, kBarrier);
    const double start = comm.now();
    body();
    const double t = comm.now() - start;
    // Ranks done early sleep until all are: on an oversubscribed node their next before() would
    // take the cores from ranks still finishing (measured with --check, 4 ranks on 2 cores: a
    // 1 MB ring's last send completions 1 ms late, 1.8-2.1 ms instead of 0.6-0.7 ms). With a
    // core per rank, spinning costs nothing and a sleeping core would wake up slower (2 ranks:
    // 5-15 %).
    if (cfg.oversubscribed) bounded_barrier(world, cfg.timeout_s, true, kBarrier);
    if (it >= cfg.cases.warmup) elapsed[static_cast<std::size_t>(it - cfg.cases.warmup)] = t;
  }
  bounded_allreduce(elapsed.data(), cfg.cases.iters, MPI_DOUBLE, MPI_MAX, world, cfg.timeout_s,
                    "the MPI_Allreduce of iteration times");
  return median(std::move(elapsed));
}

}  // namespace

std::optional<std::string> baseline_unavailable(DType type, const BufferSpace& space,
                                                std::size_t max_bytes) {
  if (mpi_type(type) == MPI_DATATYPE_NULL)
    return "Open MPI 4.1 has no " + std::string(to_string(type)) + " datatype";
  if (!space.mpi_accessible())
    return "MPI cannot access " + std::string(space.name()) + " buffers (not CUDA-aware)";
  if (max_bytes / dtype_size(type) > static_cast<std::size_t>(INT_MAX))
    return "the largest size exceeds MPI's int element count";
  return std::nullopt;
}

std::vector<TimedCase> run_timed_sweep(Communicator& comm, MPI_Comm world, BufferSpace& space,
                                       const TimedSweepConfig& cfg) {
  const std::size_t elem = dtype_size(cfg.cases.type);
  std::size_t max_bytes = 0;
  for (std::size_t s : cfg.cases.sizes) max_bytes = std::max(max_bytes, s / elem * elem);
  const MutView buffer = space.allocate(max_bytes);
  // Out-of-place calls read their input from a buffer of its own (algorithms/collective_input.hpp).
  const MutView input_buffer = space.allocate(cfg.cases.out_of_place_too ? max_bytes : 0);
  std::vector<std::byte> host(cfg.cases.check ? max_bytes : 0);
  const bool baseline = cfg.baseline_mpi && !baseline_unavailable(cfg.cases.type, space, max_bytes);
  const int rank = comm.rank(), p = comm.size();
  // The watchdog keeps the pointer: the text lives as long as the sweep.
  const std::string baseline_what =
      mpi_collective_name(cfg.baseline_collective) + " (the --baseline mpi measurement)";

  std::vector<TimedCase> results;
  std::optional<harness::Progress> progress;
  if (rank == 0)
    progress.emplace("ddlrun", cfg.cases.sizes.size() * cfg.cases.algos.size() *
                                   (cfg.cases.out_of_place_too ? 2 : 1));
  for (std::size_t size : cfg.cases.sizes) {
    const std::size_t bytes = size / elem * elem, count = bytes / elem;
    const MutView view = buffer.slice(0, bytes);
    std::optional<double> mpi_time;
    if (baseline)
      mpi_time = time_iterations(
          comm, world, cfg, [] {},
          [&] {
            // The measured call stays blocking (an MPI_Iallreduce is another algorithm): a
            // watchdog bounds it instead, two atomic stores inside the timed region.
            fault_point("baseline");
            const WatchdogGuard guard(cfg.timeout_s, baseline_what.c_str());
            run_mpi_collective(cfg.baseline_collective, view.data, count, cfg.cases.type,
                               cfg.cases.op, cfg.cases.options.root, world);
          });
    for (const std::string& name : cfg.cases.algos)
      for (const bool out_of_place : {true, false}) {
        if (out_of_place && !cfg.cases.out_of_place_too) continue;
        const Algorithm& algo = find_algorithm(name);
        const MutView input = out_of_place ? input_buffer.slice(0, bytes) : view;
        int iteration = -cfg.cases.warmup;
        auto refill = [&] {
          if (cfg.on_iteration) cfg.on_iteration(name, bytes, iteration++);
          if (!cfg.cases.check) return;
          if (out_of_place) {  // the output starts poisoned: what the call leaves is wrong
            fill_poison(host.data(), count, cfg.cases.type);
            space.upload(view, host.data());
          }
          fill_input(host.data(), count, cfg.cases.type, cfg.cases.op, algo.collective, rank, p,
                     cfg.cases.options.root);
          space.upload(input, host.data());
        };
        TimedCase c;
        c.algo = name;
        c.bytes = bytes;
        c.out_of_place = out_of_place;
        c.mpi_time_s = mpi_time;
        c.time_s = time_iterations(comm, world, cfg, refill, [&] {
          fault_point("sweep");
          if (out_of_place)
            run_out_of_place_call(comm, algo, input, view, cfg.cases.type, cfg.cases.op,
                                  cfg.cases.options);
          else
            algo.run(comm, view, cfg.cases.type, cfg.cases.op, cfg.cases.options);
        });
        if (cfg.cases.check) {
          space.download(host.data(), view);
          unsigned long long wrong = check_output(host.data(), count, cfg.cases.type, cfg.cases.op,
                                                  algo.collective, rank, p, cfg.cases.options.root)
                                         .wrong;
          bounded_allreduce(&wrong, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, world, cfg.timeout_s,
                            "the MPI_Allreduce of wrong counts");
          c.wrong = static_cast<std::size_t>(wrong);
        }
        if (rank == 0 && cfg.on_case) {
          if (progress) progress->end_line();
          cfg.on_case(c);
        }
        results.push_back(std::move(c));
        if (progress)
          progress->step(name + " " + std::to_string(bytes) + " B" +
                         (out_of_place ? " out of place" : ""));
      }
  }
  return results;
}

}  // namespace ddl
