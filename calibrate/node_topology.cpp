#include "calibrate/node_topology.hpp"

#include <mpi.h>

#include <vector>

#include "calibrate/control.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl::calibrate {

Topology discover_topology(MpiCommunicator& comm, int nodes_per_leaf, int nics) {
  control_barrier(comm, "the start (every rank entering the node split)");
  MPI_Comm local = MPI_COMM_NULL;
  check_mpi(
      MPI_Comm_split_type(comm.comm(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &local),
      "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  // My node's label: the world rank of its lowest member (local rank 0, keys are world ranks),
  // found without communicating.
  MPI_Group local_group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(local, &local_group), "MPI_Comm_group (node)");
  check_mpi(MPI_Comm_group(comm.comm(), &world_group), "MPI_Comm_group");
  int first = 0, leader = 0;
  check_mpi(MPI_Group_translate_ranks(local_group, 1, &first, world_group, &leader),
            "MPI_Group_translate_ranks");
  MPI_Group_free(&local_group);
  MPI_Group_free(&world_group);
  MPI_Comm_free(&local);
  // Every rank's label, through the bounded control collective (each rank fills its own slot).
  std::vector<double> labels(static_cast<std::size_t>(comm.size()), -1.0);
  labels[static_cast<std::size_t>(comm.rank())] = leader;
  control_max(comm, labels, "sharing the node layout");
  std::vector<int> node_of_rank(labels.begin(), labels.end());
  return topology_from_nodes(node_of_rank, nodes_per_leaf, nics);
}

}  // namespace ddl::calibrate
