// One Open MPI control variable (an MCA parameter such as btl_vader_eager_limit) read through
// the MPI tool information interface (MPI_T), so ddl prices messages with the figure the
// transport actually uses, set by the user (--mca, OMPI_MCA_*) or not.
#pragma once

#include <optional>

namespace ddl {

// The value of the integer control variable `name` in this process; nullopt when the library
// does not have it (a component that was not opened registers none: Open MPI opens its
// shared-memory transport only when a peer shares the node) or it is not an integer. Call
// between MPI_Init and MPI_Finalize.
std::optional<unsigned long long> mpi_control_variable(const char* name);

}  // namespace ddl
