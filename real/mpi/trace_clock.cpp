#include "real/mpi/trace_clock.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

namespace {
constexpr int kTag = 7;  // on MPI_COMM_WORLD, which the communicators (duplicates) do not share

template <typename T>
void exchange(bool send, T* value, int peer, MPI_Comm world, double timeout_s, const char* what) {
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(send ? MPI_Isend(value, sizeof(T), MPI_BYTE, peer, kTag, world, &req)
                 : MPI_Irecv(value, sizeof(T), MPI_BYTE, peer, kTag, world, &req),
            what);
  wait_bounded(req, world, timeout_s,
               "the " + std::string(what) + " with rank " + std::to_string(peer));
}
}  // namespace

ClockAlignment align_clock(Communicator& comm, MPI_Comm world, double timeout_s, int rounds) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(world, &size), "MPI_Comm_size");
  bounded_barrier(world, timeout_s, false, "the barrier before clock alignment");
  ClockAlignment a;
  double best_round_trip = std::numeric_limits<double>::infinity();
  // One rank at a time, so rank 0 answers each ping as soon as it lands. Rank r waits for its
  // turn while rank 0 serves ranks 1 .. r-1: its first reply's bound grows with r.
  for (int r = 1; r < size; ++r)
    for (int i = 0; i < rounds; ++i) {
      if (rank == 0) {
        char ping = 0;
        exchange(false, &ping, r, world, timeout_s, "clock ping");
        double t0 = comm.now();
        exchange(true, &t0, r, world, timeout_s, "clock reply");
      } else if (rank == r) {
        char ping = 0;
        double t0 = 0;
        const double t1 = comm.now();
        exchange(true, &ping, 0, world, timeout_s, "clock ping");
        exchange(false, &t0, 0, world, i == 0 ? timeout_s * r : timeout_s, "clock reply");
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
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibcast(&origin, 1, MPI_DOUBLE, 0, world, &req), "MPI_Ibcast (clock origin)");
  wait_bounded(req, world, timeout_s * size, "the broadcast of the clock origin");
  a.offset_s -= origin;
  a.max_uncertainty_s = a.uncertainty_s;
  bounded_allreduce(&a.max_uncertainty_s, 1, MPI_DOUBLE, MPI_MAX, world, timeout_s,
                    "the clock uncertainty");
  return a;
}

}  // namespace ddl
