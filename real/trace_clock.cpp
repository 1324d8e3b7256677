#include "real/trace_clock.hpp"

#include <algorithm>
#include <limits>

#include "real/mpi_error.hpp"

namespace ddl {

namespace {
constexpr int kTag = 7;  // on MPI_COMM_WORLD, which the communicators (duplicates) do not share
}

ClockAlignment align_clock(Communicator& comm, MPI_Comm world, int rounds) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(world, &size), "MPI_Comm_size");
  check_mpi(MPI_Barrier(world), "MPI_Barrier (clock alignment)");
  ClockAlignment a;
  double best_round_trip = std::numeric_limits<double>::infinity();
  // One rank at a time, so rank 0 answers each ping as soon as it lands.
  for (int r = 1; r < size; ++r)
    for (int i = 0; i < rounds; ++i) {
      if (rank == 0) {
        char ping = 0;
        check_mpi(MPI_Recv(&ping, 1, MPI_CHAR, r, kTag, world, MPI_STATUS_IGNORE), "MPI_Recv (clock ping)");
        const double t0 = comm.now();
        check_mpi(MPI_Send(&t0, 1, MPI_DOUBLE, r, kTag, world), "MPI_Send (clock reply)");
      } else if (rank == r) {
        const char ping = 0;
        double t0 = 0;
        const double t1 = comm.now();
        check_mpi(MPI_Send(&ping, 1, MPI_CHAR, 0, kTag, world), "MPI_Send (clock ping)");
        check_mpi(MPI_Recv(&t0, 1, MPI_DOUBLE, 0, kTag, world, MPI_STATUS_IGNORE), "MPI_Recv (clock reply)");
        const double t2 = comm.now();
        if (t2 - t1 < best_round_trip) {
          best_round_trip = t2 - t1;
          a.offset_s = t0 - (t1 + t2) / 2;
          a.uncertainty_s = best_round_trip / 2;
        }
      }
    }
  // The origin: rank 0's clock now, so every rank's trace times are seconds since this moment.
  double origin = rank == 0 ? comm.now() : 0;
  check_mpi(MPI_Bcast(&origin, 1, MPI_DOUBLE, 0, world), "MPI_Bcast (clock origin)");
  a.offset_s -= origin;
  check_mpi(MPI_Allreduce(&a.uncertainty_s, &a.max_uncertainty_s, 1, MPI_DOUBLE, MPI_MAX, world),
            "MPI_Allreduce (clock uncertainty)");
  return a;
}

}  // namespace ddl
