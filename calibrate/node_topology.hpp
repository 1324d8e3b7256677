// The topology of the running job: nodes from MPI's shared-memory split, leaves from
// --nodes-per-leaf, NICs per node from --nics (calibrate/topology.hpp checks the layout).
#pragma once

#include "calibrate/topology.hpp"
#include "real/mpi/mpi_communicator.hpp"

namespace ddl::calibrate {

// Collective over `comm`. MPI_Comm_split_type has no non-blocking form; it runs right after a
// bounded barrier (every rank has just arrived, none can be missing), and everything after it
// is bounded. Throws InvalidArgument as topology_from_nodes() does (the same on every rank).
Topology discover_topology(MpiCommunicator& comm, int nodes_per_leaf, int nics);

}  // namespace ddl::calibrate
