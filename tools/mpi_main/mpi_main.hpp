// The skeleton of every main over MPI (ddlrun, ddlcalibrate). Around the tool's own run:
//  - MPI start-up bounded by --timeout, read before MPI is up (real/mpi/startup_bound.hpp);
//  - a failed write of standard output is an error (harness/output_file.hpp);
//  - a wait that ran out (ddl::Timeout) asks the ranks still running which one stopped answering
//    and ends the job naming it (real/mpi/bounded_mpi.hpp); any other error ends the job too,
//    since past the argument checks the ranks may be anywhere;
//  - MPI_Finalize, which waits for every rank, bounded as well.
#pragma once

#include <functional>

namespace ddl {

// What a tool's run may set once it has read its arguments.
struct MpiMainBounds {
  // How long MPI_Finalize may wait (the other ranks wait there while rank 0 finishes alone).
  double finalize_s = 60;
  // How late rank 0 may answer the question "who stopped?" after a timeout: it may be in a
  // wait of its own with a longer bound (ddlcalibrate's control waits), 0 when it never is.
  double rank0_late_s = 0;
};

struct MpiMainSettings {
  const char* tool = "";
  // --timeout's default: MPI start-up's bound when the command line gives none.
  double default_timeout_s = 300;
  // MPI_Init, or one that asks for a thread level (ddlrun's init_mpi).
  std::function<void(int&, char**&)> init;
};

// Runs `run` between MPI_Init and MPI_Finalize as above; returns its exit status.
int mpi_main(int argc, char** argv, const MpiMainSettings& settings,
             const std::function<int(MpiMainBounds&)>& run);

}  // namespace ddl
