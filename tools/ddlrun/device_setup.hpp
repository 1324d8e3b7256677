// The memory space and transport ddlrun runs on: host memory over MPI, or GPU memory over
// CUDA-aware MPI, pinned-host staging, or NCCL point-to-point. Which of them this build has
// is decided at configure time (nvcc, NCCL); asking for a missing one is a clear error.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "algorithms/communicator.hpp"
#include "real/mpi/buffer_space.hpp"
#include "real/mpi/host_pages.hpp"

namespace ddl {

// The longest --timeout: about 11.6 days. Beyond ~9.2e9 s the deadline overflows steady_clock's
// nanoseconds and every wait would time out at once; no run needs a single wait of days.
inline constexpr double kMaxTimeout = 1e6;

struct RunSetup {
  std::string memory = "host";    // host | cuda
  std::string transport = "mpi";  // mpi | nccl
  double timeout_s = 300;
  Pages pages = Pages::base;  // host buffers: 4k | huge
};

// Validates the combination against this build; throws InvalidArgument naming the flag.
RunSetup parse_setup(const std::string& memory, const std::string& transport, double timeout_s,
                     const std::string& pages = "4k");

class RealBackend {
 public:
  virtual ~RealBackend() = default;
  virtual Communicator& comm() = 0;
  virtual BufferSpace& space() = 0;
  // What actually carries the bytes: "mpi", "cuda-aware mpi", "mpi staged via pinned host", "nccl".
  virtual std::string transport_name() const = 0;
};

// Collective over `world` (NCCL and duplicate communicators are created collectively).
// local_rank picks the GPU: local_rank % number of visible GPUs.
std::unique_ptr<RealBackend> make_backend(const RunSetup& setup, MPI_Comm world, int local_rank);

// Whether this build has the GPU path / the NCCL transport.
bool built_with_cuda();
bool built_with_nccl();

}  // namespace ddl
