// ddlrun --workload: training iterations on real ranks, the harness's workload driver
// (workloads/workload_driver.hpp) on host memory, so a ddlsim --workload prediction can be set
// beside a measurement on the same machine and printed in the same rows.
//
// Two streams per rank, as on the simulator: the calling thread runs the compute stream and a
// second thread the comm stream (harness::run_rank_threads). Each stream has its own
// MpiCommunicator, each on its own duplicate of MPI_COMM_WORLD, so the two threads never share a
// communicator, a request table or a scratch pool; MPI itself must then allow concurrent calls
// from both threads, hence MPI_THREAD_MULTIPLE (init_mpi asks for it when the command line has
// --workload; run_workload_mode refuses to run without it). The compute stream's compute() is
// MpiCommunicator's timed busy-wait (it polls MPI meanwhile, then yields the core after a short
// spin), its optimizer step a real host reduce of the gradients into the parameters; the comm
// stream's allreduces move and reduce real gradient bytes.
//
// --compute-scale X multiplies every layer's time (forward and backward) so an iteration fits
// this machine: at 0.01 ResNet-50's 180 ms become 1.8 ms of busy-wait. The optimizer step and
// the allreduces are not scaled: they are the real work on the real buffers.
//
// Each iteration starts after a barrier; its row values are the slowest rank's iteration and
// compute times, and a row reports the median of -n iterations after -w warm-ups, as ddlrun
// does for collectives. --check fills the gradients with rank + 1 before every iteration and
// verifies afterwards that every gradient element is p(p+1)/2 and every parameter too (the
// parameters start at 0): each bucket summed exactly once and the optimizer step applied once.
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

#include "algorithms/dims.hpp"
#include "harness/cli.hpp"
#include "harness/run_info.hpp"
#include "tools/ddlrun/device_setup.hpp"
#include "workloads/workload.hpp"
#include "workloads/workload_cli.hpp"

namespace ddl {

struct WorkloadArguments : harness::WorkloadChoice {
  double compute_scale = 1.0;  // multiplies every layer's compute time
};

// MPI_Init_thread, asking for MPI_THREAD_MULTIPLE when argv holds --workload (or --workload=...),
// the single-threaded level otherwise: the level is chosen before the flags are parsed.
void init_mpi(int& argc, char**& argv);

// --workload, --batch, --bucket, --first-bucket, --compute-scale.
void add_workload_options(boost::program_options::options_description& desc);
// Absent without --workload; --batch, --bucket, --first-bucket or --compute-scale without it, and
// bad values, throw InvalidArgument naming the flag.
std::optional<WorkloadArguments> read_workload_arguments(
    const boost::program_options::variables_map& vm, const std::string& workloads_dir);
// What the ranks compare before running (every rank must have parsed the same workload).
std::string canonical(const WorkloadArguments& w);

// Runs the iterations on MPI_COMM_WORLD and prints the workload report on rank 0, its metadata
// beginning with `info` (harness::run_info). Throws InvalidArgument for what the mode refuses (GPU
// memory, --baseline, a thread level below MPI_THREAD_MULTIPLE) on every rank alike; ddl errors
// from the run itself propagate. Rank 0 writes the report to `out`.
int run_workload_mode(const WorkloadArguments& w, const harness::CommonOptions& common,
                      const RunSetup& setup, const Dims& dims, bool baseline_mpi,
                      const harness::RunInfo& info, std::ostream& out);

}  // namespace ddl
