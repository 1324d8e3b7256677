#include "tools/ddlrun/device_setup.hpp"

#include <cmath>

#include "algorithms/error.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/timed_sweep.hpp"

#ifdef DDL_HAVE_CUDA
#include "real/cuda/cuda_communicator.hpp"
#endif

namespace ddl {

bool built_with_cuda() {
#ifdef DDL_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

bool built_with_nccl() {
#ifdef DDL_HAVE_CUDA
  return nccl_built();
#else
  return false;
#endif
}

RunSetup parse_setup(const std::string& memory, const std::string& transport, double timeout_s,
                     const std::string& pages) {
  if (memory != "host" && memory != "cuda")
    throw InvalidArgument("unknown --memory '" + memory + "' (known: host, cuda)");
  if (transport != "mpi" && transport != "nccl")
    throw InvalidArgument("unknown --transport '" + transport + "' (known: mpi, nccl)");
  if (!(timeout_s > 0) || !std::isfinite(timeout_s) || timeout_s > kMaxTimeout)
    throw InvalidArgument("--timeout must be a positive number of seconds, at most " +
                          std::to_string(static_cast<long long>(kMaxTimeout)) + ", got " +
                          std::to_string(timeout_s));
  if (memory == "cuda" && !built_with_cuda())
    throw InvalidArgument(
        "--memory cuda: this ddlrun was built without CUDA (configure with nvcc "
        "available, -DDDL_WITH_CUDA=ON)");
  if (transport == "nccl" && !built_with_nccl())
    throw InvalidArgument(
        "--transport nccl: NCCL support was not built in (NCCL was not found when "
        "ddl was configured)");
  if (transport == "nccl" && memory != "cuda")
    throw InvalidArgument("--transport nccl moves GPU buffers: use it with --memory cuda");
  const Pages host_pages = parse_pages(pages);
  if (host_pages == Pages::huge && memory != "host")
    throw InvalidArgument("--pages huge applies to host buffers: use it with --memory host");
  require_pages(host_pages);
  return {memory, transport, timeout_s, host_pages};
}

namespace {

class HostBackend : public RealBackend {
 public:
  HostBackend(MPI_Comm world, double timeout_s, Pages pages)
      : comm_(world, timeout_s), space_(pages) {}
  Communicator& comm() override { return comm_; }
  BufferSpace& space() override { return space_; }
  std::string transport_name() const override { return "mpi"; }

 private:
  MpiCommunicator comm_;
  HostSpace space_;
};

#ifdef DDL_HAVE_CUDA
class CudaBackend : public RealBackend {
 public:
  CudaBackend(MPI_Comm world, const CudaConfig& config)
      : comm_(world, config), space_(comm_.transport() == DeviceTransport::cuda_aware_mpi) {}
  Communicator& comm() override { return comm_; }
  BufferSpace& space() override { return space_; }
  std::string transport_name() const override { return comm_.transport_name(); }

 private:
  CudaCommunicator comm_;
  CudaSpace space_;
};
#endif

}  // namespace

std::unique_ptr<RealBackend> make_backend(const RunSetup& setup, MPI_Comm world, int local_rank) {
  if (setup.memory == "host")
    return std::make_unique<HostBackend>(world, setup.timeout_s, setup.pages);
#ifdef DDL_HAVE_CUDA
  std::string why;
  const int devices = cuda_device_count(&why);
  if (devices == 0) throw BackendError("--memory cuda: no usable GPU on this node (" + why + ")");
  CudaConfig config;
  config.device = local_rank % devices;
  config.timeout_s = setup.timeout_s;
  config.transport = setup.transport == "nccl" ? DeviceTransport::nccl : DeviceTransport::automatic;
  return std::make_unique<CudaBackend>(world, config);
#else
  (void)local_rank;
  throw InvalidArgument("--memory cuda: this ddlrun was built without CUDA");
#endif
}

}  // namespace ddl
