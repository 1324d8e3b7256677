// Catch2 under MPI: every rank runs the same test cases in the same order, so collectives
// inside a test match up; mpirun's exit status is non-zero when any rank fails. MPI runs at
// MPI_THREAD_MULTIPLE where the library provides it: non-blocking collectives run on threads of
// their own (algorithms/nonblocking.hpp), and their test skips below it.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const int failed = Catch::Session().run(argc, argv);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
