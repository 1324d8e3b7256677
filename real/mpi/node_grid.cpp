#include "real/mpi/node_grid.hpp"

#include "algorithms/error.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

NodeLayout node_layout(MPI_Comm comm, double timeout_s) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  MPI_Comm local = MPI_COMM_NULL;
  {
    const WatchdogGuard guard(timeout_s, "MPI_Comm_split_type (the node-local split)");
    check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local),
              "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  }
  NodeLayout layout;
  check_mpi(MPI_Comm_rank(local, &layout.local_rank), "MPI_Comm_rank (node)");
  check_mpi(MPI_Comm_size(local, &layout.ranks_per_node), "MPI_Comm_size (node)");
  // The lowest world rank of my node: with node-by-node numbering it is node * ranks_per_node.
  int leader = rank;
  bounded_allreduce(&leader, 1, MPI_INT, MPI_MIN, local, timeout_s, "the node's lowest rank");
  MPI_Comm_free(&local);

  int per_node[2] = {layout.ranks_per_node, -layout.ranks_per_node};
  const bool numbered = leader % layout.ranks_per_node == 0 && rank == leader + layout.local_rank;
  int ordered = numbered ? 1 : 0;
  bounded_allreduce(per_node, 2, MPI_INT, MPI_MIN, comm, timeout_s, "the ranks-per-node count");
  bounded_allreduce(&ordered, 1, MPI_INT, MPI_MIN, comm, timeout_s, "the rank-order check");
  const int fewest = per_node[0], most = -per_node[1];
  if (fewest != most)
    throw InvalidArgument("the nodes hold different numbers of ranks (" + std::to_string(fewest) +
                          " to " + std::to_string(most) +
                          "), so there is no default (ranks per node) x (nodes) grid: give --dims, "
                          "or start the same number of ranks on every node");
  if (!ordered)
    throw InvalidArgument(
        "ranks are not numbered node by node (rank = node * " + std::to_string(most) +
        " + local rank), so the default grid would mix nodes in its first "
        "dimension: place ranks with mpirun --map-by slot (or core), or give --dims");
  layout.nodes = size / layout.ranks_per_node;
  layout.dims = layout.nodes == 1 ? Dims::flat(size) : Dims({layout.ranks_per_node, layout.nodes});
  return layout;
}

}  // namespace ddl
