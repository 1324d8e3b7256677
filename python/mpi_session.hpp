// MPI as the Python module sees it: a process that may or may not have MPI yet. The module
// initialises MPI on first use unless someone (mpi4py, the embedding program) already did, and
// finalizes it at interpreter exit only when it was the one that initialised it, so
// `import mpi4py.MPI` before or after `import ddl` both work and MPI is finalized exactly once.
#pragma once

#include <string>

#include "algorithms/dims.hpp"
#include "real/mpi/mpi_communicator.hpp"

namespace ddl::python {

// This rank and the world size (MPI initialised first if needed); not collective.
int world_rank();
int world_size();

// The communicator the collectives run on: ddl's own duplicate of MPI_COMM_WORLD, created by the
// first call (collective: every rank's first collective call creates it at the same point), with
// its wait bound set to timeout_s for this call.
MpiCommunicator& world(double timeout_s);

// The default grid (ranks per node) x (nodes) of MPI's node-local split, computed when world()
// first ran. Throws InvalidArgument when the ranks do not form such a grid (pass dims).
const Dims& default_dims();

// Frees the communicator and, when this module initialised MPI, finalizes it. Registered with
// Python's atexit, which runs before mpi4py's own finalization (a C-level Py_AtExit).
void shutdown();

}  // namespace ddl::python
