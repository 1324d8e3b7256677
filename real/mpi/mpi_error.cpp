#include "real/mpi/mpi_error.hpp"

#include <cstdio>
#include <cstdlib>

#include "algorithms/error.hpp"

namespace ddl {

void throw_mpi_error(int code, const std::string& operation) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    throw BackendError(operation + ": MPI error code " + std::to_string(code));
  }
  throw BackendError(operation + ": " + std::string(text, static_cast<std::size_t>(length)));
}

void abort_world(const char* program, const std::string& what, int exit_code) {
  int initialized = 0, finalized = 0, rank = -1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Timeouts and most backend errors already name their rank; say it once.
  if (what.rfind("rank ", 0) == 0)
    std::fprintf(stderr, "%s: %s\n", program, what.c_str());
  else
    std::fprintf(stderr, "%s: rank %d: %s\n", program, rank, what.c_str());
  std::fflush(stderr);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

}  // namespace ddl
