// Private state of CudaCommunicator, shared by its core (cuda_communicator.cpp) and its
// transports (cuda_transport.cpp). Not part of the public interface.
#pragma once

#include <cuda_runtime.h>

#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "algorithms/scratch_pool.hpp"
#include "real/cuda/cuda_communicator.hpp"
#include "real/mpi/mpi_communicator.hpp"

#ifdef DDL_HAVE_NCCL
#include <nccl.h>
#endif

namespace ddl {

#ifdef DDL_HAVE_NCCL
// NCCL result codes become BackendError here, once.
void check_nccl(ncclResult_t code, const char* what);
#endif

// A CUDA event that closes one launched NCCL group; every op of the group shares it.
struct GroupEvent {
  cudaEvent_t event = nullptr;
  bool recorded = false;
  ~GroupEvent() {
    if (event) cudaEventDestroy(event);
  }
};

struct CudaCommunicator::Impl {
  struct Slot {
    MutView host;  // pinned staging buffer of one chunk
    cudaEvent_t copied = nullptr;
    Request mpi;
  };
  struct Op {
    bool send = false;
    int peer = -1, tag = 0;
    std::size_t bytes = 0;
    void* device = nullptr;
    Request direct;  // an MpiCommunicator request: cuda-aware, zero-byte and compute ops
    bool staged = false;
    std::size_t pieces = 0, started = 0, moved = 0, finished = 0;  // pipeline counters
    Slot slots[2];
    std::shared_ptr<GroupEvent> group;  // nccl
  };

  Impl(MPI_Comm comm, const CudaConfig& config);
  ~Impl();

  Request post(Op op);
  // Advances every staged op as far as it can go without blocking.
  void progress_all();
  // Advances op and says whether it is complete.
  bool advance(std::uint64_t id, Op& op);
  bool advance_staged_send(std::uint64_t id, Op& op);
  bool advance_staged_recv(std::uint64_t id, Op& op);
  void start_staged(Op& op);
  void finish_staged(Op& op);
  bool channel_head(std::uint64_t id, const Op& op) const;
  void release_channel(std::uint64_t id, const Op& op);
  std::string describe(const Op& op) const;
  void sync(cudaStream_t stream, const char* what);
  std::size_t piece_length(const Op& op, std::size_t k) const;

  void nccl_post(Op& op);
  void nccl_launch_group();

  MpiCommunicator mpi;
  CudaConfig config;
  DeviceTransport transport;
  cudaStream_t compute = nullptr, d2h = nullptr, h2d = nullptr, net = nullptr;
  ScratchPool scratch;
  ScratchPool pinned;
  std::uint64_t next_id = 1;
  std::unordered_map<std::uint64_t, Op> ops;
  // Staged ops per (direction, peer, tag) in posting order: only the head may post MPI
  // messages, so pieces of consecutive messages never interleave on the wire.
  std::map<std::tuple<bool, int, int>, std::deque<std::uint64_t>> channels;
#ifdef DDL_HAVE_NCCL
  ncclComm_t nccl = nullptr;
#endif
  std::shared_ptr<GroupEvent> open_group;  // non-null while an NCCL group is being filled
};

}  // namespace ddl
