// GPU correctness: every registered algorithm on device buffers through CudaCommunicator,
// 2-4 ranks sharing one GPU, counts 0, 1, odd and 16 MB, every dtype (every op on the odd
// count), exact results. Usage: cuda_collectives [staged|auto|nccl]. Prints one summary line
// per rank-0 run and exits non-zero on any wrong element.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/registry.hpp"
#include "real/cuda/cuda_communicator.hpp"
#include "real/mpi/mpi_error.hpp"

using namespace ddl;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failures = 0, cases = 0;
  try {
    const std::string mode = argc > 1 ? argv[1] : "staged";
    CudaConfig config;
    config.timeout_s = 60;
    config.stage_chunk = 256 << 10;  // several pieces per message even at moderate sizes
    config.transport = mode == "nccl"   ? DeviceTransport::nccl
                       : mode == "auto" ? DeviceTransport::automatic
                                        : DeviceTransport::staged;
    config.device = 0;
    CudaCommunicator comm(MPI_COMM_WORLD, config);
    CudaSpace space(comm.transport() == DeviceTransport::cuda_aware_mpi);
    const int p = comm.size(), r = comm.rank();
    const std::size_t big = std::size_t{16} << 20;
    const MutView device = space.allocate(big);
    std::vector<std::byte> host(big);
    for (const Algorithm& a : algorithms())
      // No switch reduces here, and the CUDA backend has no library of its own.
      for (const Dims& dims : a.needs_in_switch || a.needs_native_library ? std::vector<Dims>{}
                              : a.collective == Collective::allreduce
                                  ? factorizations(p, 3)
                                  : std::vector<Dims>{Dims::flat(p)})
        for (DType type : all_dtypes())
          for (std::size_t count :
               {std::size_t{0}, std::size_t{1}, std::size_t{1001}, big / dtype_size(type)})
            for (ReduceOp op : all_reduce_ops()) {
              if (count != 1001 && op != ReduceOp::sum) continue;
              Options opts;
              opts.dims = dims;
              opts.root = p - 1;
              opts.segment_bytes = 1 << 20;
              const MutView view = device.slice(0, count * dtype_size(type));
              fill_input(host.data(), count, type, op, a.collective, r, p, opts.root);
              space.upload(view, host.data());
              a.run(comm, view, type, op, opts);
              space.download(host.data(), view);
              unsigned long long wrong =
                  check_output(host.data(), count, type, op, a.collective, r, p, opts.root).wrong;
              check_mpi(MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                                      MPI_COMM_WORLD),
                        "MPI_Allreduce");
              ++cases;
              if (wrong != 0) {
                ++failures;
                if (r == 0)
                  std::printf("WRONG: %s dims %s count %zu %s %s: %llu wrong elements\n",
                              a.name.c_str(), dims.to_string().c_str(), count,
                              std::string(to_string(type)).c_str(),
                              std::string(to_string(op)).c_str(), wrong);
              }
            }
    if (r == 0)
      std::printf("cuda_collectives: %d ranks, transport %s: %d cases, %d wrong\n", p,
                  comm.transport_name().c_str(), cases, failures);
  } catch (const std::exception& e) {
    abort_world("cuda_collectives", e.what(), 1);
  }
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
