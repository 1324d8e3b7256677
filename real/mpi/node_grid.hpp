// The default logical grid of a real run: (ranks per node) x (nodes), read from MPI's
// node-local split (MPI_Comm_split_type SHARED), so the first, innermost dimension groups the
// ranks that share memory (GPUs of one node). One node gives the flat grid "p".
#pragma once

#include <mpi.h>

#include <string>

#include "algorithms/dims.hpp"

namespace ddl {

struct NodeLayout {
  int ranks_per_node = 1;
  int nodes = 1;
  int local_rank = 0;  // index of this rank among its node's ranks (picks the GPU)
  Dims dims;           // the default grid
};

// Collective over `comm`. Throws InvalidArgument (suggesting --dims) when the nodes hold
// different numbers of ranks, or when ranks are not numbered node by node (rank = node *
// ranks_per_node + local rank, what mpirun's --map-by slot/core gives), since the innermost
// dimension would then mix nodes.
// Every collective is bounded by timeout_s (a watchdog for MPI_Comm_split_type, which has no
// non-blocking form).
NodeLayout node_layout(MPI_Comm comm, double timeout_s = 300);

}  // namespace ddl
