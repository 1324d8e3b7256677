// GPU-memory backend. Buffers, scratch and reductions live on the device (cuda_kernels.cu);
// bytes move by one of three transports, chosen at run time:
//   cuda-aware mpi - MPI_Isend/Irecv on device pointers, when Open MPI reports CUDA support
//                    (MPIX_Query_cuda_support);
//   staged         - otherwise: each message moves in chunks through a pair of pinned host
//                    buffers, the device<->host copy of one chunk overlapping the MPI transfer
//                    of the other (double buffering);
//   nccl           - ncclSend/ncclRecv, when built with NCCL and asked for. NCCL has no tags:
//                    messages between two ranks match in posting order, which the schedule
//                    executor's lockstep guarantees.
// Every wait polls (MPI_Test, cudaEventQuery) against the timeout, as the host backend does.
// The header stays free of CUDA types so host-only code can include it.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "algorithms/communicator.hpp"
#include "real/mpi/buffer_space.hpp"

namespace ddl {

enum class DeviceTransport { automatic, cuda_aware_mpi, staged, nccl };

struct CudaConfig {
  int device = 0;
  DeviceTransport transport = DeviceTransport::automatic;  // automatic: cuda-aware if possible
  double timeout_s = 300;
  std::size_t stage_chunk = std::size_t{1} << 20;  // bytes per staged piece
};

// Number of usable GPUs; 0 (with the reason in *why) when there is no driver or device.
int cuda_device_count(std::string* why = nullptr);
// MPIX_Query_cuda_support() where Open MPI provides it; false otherwise.
bool mpi_cuda_aware();
bool nccl_built();

class CudaCommunicator : public Communicator {
 public:
  CudaCommunicator(MPI_Comm comm, const CudaConfig& config);
  ~CudaCommunicator() override;

  int rank() const override;
  int size() const override;
  double now() override;
  Request isend(int peer, ConstView data, int tag) override;
  Request irecv(int peer, MutView data, int tag) override;
  void wait(Request& r) override;
  std::size_t wait_any(std::span<Request> rs) override;
  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override;
  void copy(MutView dst, ConstView src) override;
  void divide(MutView inout, DType type, std::size_t divisor) override;
  MutView acquire_scratch(std::size_t bytes) override;
  void release_scratch(MutView scratch) override;
  Request compute(double seconds) override;
  // MPI_Comm_split over this communicator's MPI ranks; the child is a CudaCommunicator of the
  // same configuration and transport (an NCCL transport makes the child an NCCL communicator of
  // its own), on its own duplicate of the split communicator.
  std::unique_ptr<Communicator> split(int color, int key) override;

  DeviceTransport transport() const;
  std::string transport_name() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Device buffers for ddlrun and the tests: cudaMalloc'ed, zeroed once, freed with the space.
class CudaSpace : public BufferSpace {
 public:
  explicit CudaSpace(bool mpi_accessible) : mpi_accessible_(mpi_accessible) {}
  ~CudaSpace() override;
  const char* name() const override { return "cuda"; }
  MutView allocate(std::size_t bytes) override;
  void upload(MutView dst, const void* host) override;
  void download(void* host, ConstView src) override;
  bool mpi_accessible() const override { return mpi_accessible_; }

 private:
  bool mpi_accessible_;
  std::vector<void*> buffers_;
};

}  // namespace ddl
