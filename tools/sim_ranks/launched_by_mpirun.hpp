// Whether mpirun started this process as a rank of its job. Open MPI puts OMPI_COMM_WORLD_SIZE
// in every rank's environment, but a process a rank starts inherits it (a Python script under
// mpirun that runs ddlsim through ddl.simulate), and MPI_Init there fails. A rank is also a
// child of Open MPI's launcher: mpirun and mpiexec are orterun, orted on the other nodes, prte*
// in Open MPI 5.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace ddl::sim {

inline bool launched_by_mpirun() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return false;
  std::error_code error;
  const std::filesystem::path parent =
      std::filesystem::read_symlink("/proc/" + std::to_string(getppid()) + "/exe", error);
  if (error) return false;
  const std::string name = parent.filename().string();
  for (const char* launcher : {"orterun", "orted", "mpirun", "mpiexec", "prte", "prterun", "prted"})
    if (name == launcher) return true;
  return false;
}

}  // namespace ddl::sim
