// The one place where MPI error codes become ddl errors. Every MPI call of the real backend
// runs on a communicator with MPI_ERRORS_RETURN and passes its code through check_mpi(), so a
// failure surfaces as ddl::BackendError naming the call instead of Open MPI's default abort.
#pragma once

#include <mpi.h>

#include <string>

namespace ddl {

// Throws BackendError("<operation>: <MPI_Error_string(code)>").
[[noreturn]] void throw_mpi_error(int code, const std::string& operation);
// Throws as above unless code is MPI_SUCCESS; inline, so the success path costs one compare
// (no string is built on polling paths).
inline void check_mpi(int code, const char* operation) {
  if (code != MPI_SUCCESS) throw_mpi_error(code, operation);
}
inline void check_mpi(int code, const std::string& operation) {
  if (code != MPI_SUCCESS) throw_mpi_error(code, operation);
}

// Print "<program>: rank R: <what>" on stderr (the rank once, if <what> starts with it) and
// MPI_Abort the world with `exit_code`: the end of every fatal error in a multi-rank program, so no
// other rank is left waiting.
[[noreturn]] void abort_world(const char* program, const std::string& what, int exit_code);

}  // namespace ddl
