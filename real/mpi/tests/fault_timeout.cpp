// The timeout path end to end: rank 0's first ring message to rank 1 is dropped by the fault
// injector, so rank 1 must stop with "timed out ... recv from peer 0 tag 0" and abort the job,
// never hang. ctest matches that line in the output. Rank 1 alone has the short timeout, so it
// is the rank that reports.
#include <mpi.h>

#include <vector>

#include "algorithms/registry.hpp"
#include "loopback/fault_injecting_communicator.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/mpi_error.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  try {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ddl::MpiCommunicator mpi(MPI_COMM_WORLD, rank == 1 ? 1.0 : 60.0);
    ddl::FaultInjectingCommunicator::Faults faults;
    if (rank == 0) faults.drop_peer = 1;
    ddl::FaultInjectingCommunicator comm(mpi, faults);
    std::vector<float> buf(1024, 1.0f);
    ddl::find_algorithm("ring").run(comm, {buf.data(), buf.size() * sizeof(float)},
                                    ddl::DType::float32, ddl::ReduceOp::sum, ddl::Options{});
    MPI_Barrier(MPI_COMM_WORLD);
  } catch (const ddl::Error& e) {
    ddl::abort_world("fault_timeout", e.what(), 3);
  }
  MPI_Finalize();
  return 0;
}
