// --baseline mpi: the MPI collective that does what a ddl collective does, in place on the same
// buffer (algorithms/registry.hpp has the collectives' buffer conventions). Where MPI's call
// needs equal blocks (reduce-scatter, allgather, alltoall, gather, scatter) it moves count / p
// elements per rank, nccl-tests' convention, so an uneven remainder is not timed.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

#include "algorithms/registry.hpp"

namespace ddl {

// MPI_Allreduce, MPI_Reduce_scatter_block, MPI_Allgather, MPI_Bcast, MPI_Alltoall, MPI_Reduce,
// MPI_Gather, MPI_Scatter or MPI_Sendrecv_replace (to rank+1, from rank-1).
std::string mpi_collective_name(Collective c);

// Runs it on `count` elements of `data` over `world`; throws BackendError naming the call.
void run_mpi_collective(Collective c, void* data, std::size_t count, DType type, ReduceOp op,
                        int root, MPI_Comm world);

}  // namespace ddl
