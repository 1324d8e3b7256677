// The skeleton of every main that simulates, alone or under mpirun (ddlsim, ddlplan): the ranks
// of the job (SweepRanks, sweep_mpi.hpp), the tool's run, then
//  - a failed write of standard output is an error (harness/output_file.hpp);
//  - a wait for another rank that ran out ends every rank: the one that did not answer would keep
//    MPI_Finalize waiting;
//  - any other error is said once, by rank 0: every rank parses the same flags and loads the same
//    platform, and an error in another rank's share reaches rank 0 with the results.
#pragma once

#include <functional>

#include "tools/sim_ranks/sweep_mpi.hpp"

namespace ddl::sim {

// Returns `run`'s exit status, 1 after an error.
int sim_main(int argc, char** argv, const char* tool, const std::function<int(SweepRanks&)>& run);

}  // namespace ddl::sim
