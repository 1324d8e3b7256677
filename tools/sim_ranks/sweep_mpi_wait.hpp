// The MPI calls of a spread sweep (sweep_mpi.cpp, sweep_spread.cpp), checked and bounded.
#pragma once

#include <mpi.h>

#include <string>

namespace ddl::sim {

// Throws BackendError "CALL: <MPI's message>" for a code other than MPI_SUCCESS.
void check(int code, const char* call);

// Polls `req` until it completes or timeout_s runs out (Timeout naming `rank` and `what`).
// Sleeps between polls: the ranks still simulating need the cores (mpirun -np N often runs more
// ranks than there are cores).
void wait_for(MPI_Request& req, double timeout_s, int rank, const std::string& what);

}  // namespace ddl::sim
