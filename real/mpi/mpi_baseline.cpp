#include "real/mpi/mpi_baseline.hpp"

#include "algorithms/types.hpp"
#include "real/mpi/mpi_datatypes.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

std::string mpi_collective_name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "MPI_Allreduce";
    case Collective::reduce_scatter: return "MPI_Reduce_scatter_block";
    case Collective::allgather: return "MPI_Allgather";
    case Collective::broadcast: return "MPI_Bcast";
    case Collective::alltoall: return "MPI_Alltoall";
    case Collective::reduce: return "MPI_Reduce";
    case Collective::gather: return "MPI_Gather";
    case Collective::scatter: return "MPI_Scatter";
    case Collective::sendrecv: return "MPI_Sendrecv_replace";
  }
  return "?";
}

void run_mpi_collective(Collective c, void* data, std::size_t count, DType type, ReduceOp op,
                        int root, MPI_Comm world) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const MPI_Datatype t = mpi_type(type);
  const int n = static_cast<int>(count), block = n / size;
  const bool at_root = rank == root;
  // A rank's own block in gather's buffer, where MPI_IN_PLACE is only the root's.
  void* mine = static_cast<std::byte*>(data) +
               static_cast<std::size_t>(rank) * static_cast<std::size_t>(block) * dtype_size(type);
  int rc = MPI_SUCCESS;
  switch (c) {
    case Collective::allreduce:
      rc = MPI_Allreduce(MPI_IN_PLACE, data, n, t, mpi_op(op), world);
      break;
    case Collective::reduce_scatter:
      rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, data, block, t, mpi_op(op), world);
      break;
    case Collective::allgather:
      rc = MPI_Allgather(MPI_IN_PLACE, 0, t, data, block, t, world);
      break;
    case Collective::broadcast: rc = MPI_Bcast(data, n, t, root, world); break;
    case Collective::alltoall: rc = MPI_Alltoall(MPI_IN_PLACE, 0, t, data, block, t, world); break;
    case Collective::reduce:
      rc = MPI_Reduce(at_root ? MPI_IN_PLACE : data, data, n, t, mpi_op(op), root, world);
      break;
    case Collective::gather:
      rc = MPI_Gather(at_root ? MPI_IN_PLACE : mine, block, t, data, block, t, root, world);
      break;
    case Collective::scatter:
      rc = MPI_Scatter(data, block, t, at_root ? MPI_IN_PLACE : data, block, t, root, world);
      break;
    case Collective::sendrecv:
      rc = MPI_Sendrecv_replace(data, n, t, (rank + 1) % size, 0, (rank + size - 1) % size, 0,
                                world, MPI_STATUS_IGNORE);
      break;
  }
  check_mpi(rc, mpi_collective_name(c) + " (baseline)");
}

}  // namespace ddl
