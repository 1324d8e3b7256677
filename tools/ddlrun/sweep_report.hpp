// ddlrun's report of a size sweep (harness/report.hpp), the columns ddlsim writes: the run's
// metadata and, on rank 0, each case's row as soon as it is measured.
#pragma once

#include <cstddef>
#include <string>

#include "algorithms/dims.hpp"
#include "harness/report.hpp"
#include "real/mpi/timed_sweep.hpp"

namespace ddl {

// tool, version and arguments (argv), then machine (this host), ranks, nodes, dims.
harness::RunInfo sweep_run_info(int argc, const char* const* argv, int ranks, int nodes,
                                const Dims& dims);

// A measured case as a report row: the baseline's busbw as a ring allreduce's, and in `chosen`
// what ran (auto's pick, made from the sweep's options and the communicator's shared memory and
// eager limit as allreduce_auto makes it).
harness::Row sweep_row(const TimedCase& c, const TimedSweepConfig& cfg, const Dims& dims, int ranks,
                       bool shared_memory, std::size_t eager_limit);

}  // namespace ddl
