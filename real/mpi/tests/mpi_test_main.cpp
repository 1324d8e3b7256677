// Catch2 under MPI: every rank runs the same test cases in the same order, so collectives
// inside a test match up; mpirun's exit status is non-zero when any rank fails.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int failed = Catch::Session().run(argc, argv);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
