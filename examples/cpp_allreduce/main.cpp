// Allreduce a gradient-sized buffer with ddl's multi-dimensional algorithm on MPI ranks, over
// the grid of the machine (ranks per node x nodes), and check every element on every rank.
//   mpirun -np 4 cpp_allreduce [algorithm]     (default ddl; ring, rhd, dbtree, hier, auto)
#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/node_grid.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string name = argc > 1 ? argv[1] : "ddl";
  int status = 0;
  try {
    ddl::MpiCommunicator comm(MPI_COMM_WORLD, /*timeout_s=*/60);
    const ddl::Algorithm& algorithm = ddl::find_algorithm(name);
    ddl::Options options;
    options.dims = ddl::node_layout(MPI_COMM_WORLD, 60).dims;

    // Rank r contributes r + 1 in every element: the sum is p (p + 1) / 2 everywhere.
    std::vector<float> gradient(1 << 20, static_cast<float>(comm.rank() + 1));
    algorithm.run(comm, {gradient.data(), gradient.size() * sizeof(float)}, ddl::DType::float32,
                  ddl::ReduceOp::sum, options);

    const int p = comm.size();
    const float expected = static_cast<float>(p * (p + 1) / 2);
    long wrong = 0;
    for (float g : gradient) wrong += g != expected;
    long total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const std::string verdict =
        total == 0 ? "every element " + std::to_string(p * (p + 1) / 2) + " on every rank"
                   : std::to_string(total) + " wrong elements";
    if (comm.rank() == 0)
      std::printf("cpp_allreduce: %d ranks, dims %s, %s allreduce of %zu floats: %s\n", p,
                  options.dims.to_string().c_str(), name.c_str(), gradient.size(), verdict.c_str());
    status = total == 0 ? 0 : 1;
  } catch (const ddl::Error& e) {
    std::fprintf(stderr, "cpp_allreduce: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return status;
}
