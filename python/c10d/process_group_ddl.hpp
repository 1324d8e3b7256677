// ProcessGroupDDL: torch.distributed's backend "ddl" (torch 1.13's c10d::ProcessGroup), a client
// of ddl's C API (ddl.h). Every collective runs through ddl_allreduce_inplace or
// ddl_collective_inplace with the collective's default algorithm, so the C API's call agreement
// holds: ranks whose calls differ (element count, dtype, op, root) raise on every rank instead of
// hanging or corrupting memory. Only send and recv, which the C API lacks, use MPI directly, on
// the group's own communicator.
//
// Execution is synchronous: each operation runs to completion inside the call and returns a
// completed Work whose future holds the output tensors (DDP's reducer waits on that future).
// python/ddl/distributed.py registers the backend and creates the groups.
#pragma once

#include <ddl.h>
#include <mpi.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace ddl::c10d_backend {

class ProcessGroupDDL : public c10d::ProcessGroup {
 public:
  // Collective over the group's members (each process calls it with its own `rank`):
  // `world_ranks[r]` is group rank r's rank in MPI_COMM_WORLD, and this process must be
  // world_ranks[rank]. The group's MPI communicator orders the members by group rank. MPI must be
  // initialised at MPI_THREAD_MULTIPLE (torch may call from its own threads); the group never
  // finalizes MPI. `timeout_s` bounds every wait of every operation.
  ProcessGroupDDL(int rank, int size, const std::vector<int>& world_ranks, double timeout_s);
  ~ProcessGroupDDL() override;

  const std::string getBackendName() const override { return "ddl"; }
  double timeout() const { return timeout_s_; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs,
                                          std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst_rank,
                                      int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src_rank,
                                      int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;

 private:
  // Runs one collective in place on `count` elements at `buf` through the C API (allreduce
  // through ddl_allreduce_inplace, the others through ddl_collective_inplace), each with its
  // default algorithm; throws with the C API's message, prefixed with `function`.
  void run(const char* function, ddl_collective_t collective, void* buf, std::size_t count,
           ddl_dtype_t dtype, ddl_op_t op, int root);
  // Refuses this rank's call with `why`: first joins the C API's agreement with an argument the
  // C API refuses, so the other ranks' matching call fails at once ("rank R could not make the
  // call") instead of waiting for this rank until the timeout, then throws ValueError(why).
  [[noreturn]] void refuse(const char* function, ddl_collective_t collective,
                           const std::string& why);
  // all_to_all_single with split sizes: ddl_alltoallv, rows of the first dimension per peer.
  c10::intrusive_ptr<c10d::Work> alltoallv_base(at::Tensor& output, at::Tensor& input,
                                                const std::vector<int64_t>& output_splits,
                                                const std::vector<int64_t>& input_splits);
  // refuse() for an all-to-all with split sizes: joins ddl_alltoallv's agreement instead.
  [[noreturn]] void refuse_alltoallv(const char* function, const std::string& why);
  // Throws the C API's last error for `r`, prefixed with `function`: RuntimeError for a timeout
  // or a failure underneath, ValueError for a refused argument or ranks whose calls differ.
  [[noreturn]] void raise_api_error(const char* function, ddl_result_t r);
  // The root of broadcast, reduce, gather and scatter, checked to be a rank of the group.
  int root_of(const char* function, ddl_collective_t collective, int64_t root);
  // Moves `bytes` at `data` to or from `peer` with tag `tag`, polling until the group's timeout.
  void point_to_point(const char* function, bool sending, void* data, std::size_t bytes, int peer,
                      int tag);

  double timeout_s_;
  MPI_Comm mpi_comm_ = MPI_COMM_NULL;  // the members in group-rank order; send and recv use it
  ddl_comm_t comm_ = nullptr;          // the C API's communicator over a duplicate of mpi_comm_
  std::mutex mutex_;                   // one operation at a time (ddl.h: one thread per comm)
};

}  // namespace ddl::c10d_backend
