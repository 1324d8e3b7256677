// Host-memory backend over Open MPI point-to-point. Sends and receives are non-blocking
// (MPI_Isend/MPI_Irecv); waits poll with MPI_Test against a deadline (bounded_wait.hpp) and end
// in ddl::Timeout naming rank, peer, tag and operation; local reductions are host_reduce's
// vectorisable loops; scratch comes from a grow-only pool of pre-touched buffers.
//
// get/put (its OneSided capability) reach the ranks of this machine through the kernel's
// cross-memory attach (cross_memory.hpp): found once, at construction, a collective over the
// node's ranks.
//
// Its NativeLibrary capability is Open MPI's own MPI_Allreduce (the `native` algorithm) and the
// plan auto measures between it and ddl's algorithms (real/mpi/measured_plan_cache.hpp), made
// once per grid and kept for the communicator's life.
//
// The communicator works on its own duplicate of the given MPI communicator, with
// MPI_ERRORS_RETURN set, so every MPI failure passes through check_mpi() once. split is
// MPI_Comm_split (bounded by the timeout like every collective here); the child is an
// MpiCommunicator over its own duplicate of the result, freed in its destructor, with the
// parent's timeout.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/native_library.hpp"
#include "algorithms/one_sided.hpp"
#include "algorithms/scratch_pool.hpp"

namespace ddl {

class MpiCommunicator : public Communicator, public OneSided, public NativeLibrary {
 public:
  static constexpr double kDefaultTimeout = 300.0;  // seconds

  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD, double timeout_s = kDefaultTimeout);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
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
  OneSided* one_sided() override { return this; }
  NativeLibrary* native_library() override { return this; }
  std::unique_ptr<Communicator> split(int color, int key) override;

  bool shares_memory_with(int peer) const override;
  MemoryHandle handle(MutView buffer) override;
  void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override;
  void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) override;
  // Open MPI's shared-memory transport's (btl_vader_eager_limit, read through MPI_T), the
  // smallest over the ranks, where the ranks share memory; else 0.
  std::size_t eager_limit() const override { return eager_limit_; }

  // NativeLibrary: MPI_Allreduce, bounded like every other wait.
  std::string native_name() const override;
  bool native_supports(DType type) const override;
  void native_allreduce(MutView data, DType type, ReduceOp op) override;
  std::shared_ptr<const Plan> measured_plan(const Dims& grid, std::string* basis) override;

  // Non-blocking completion check of an isend/irecv/compute request: true (and r reset) when
  // done. Errors (size mismatch, MPI failure) throw. For backends layered on this one.
  bool test(Request& r);
  // "recv from peer 3 tag 7 (4096 bytes)" for a pending request, for error messages.
  std::string describe(const Request& r) const;

  MPI_Comm comm() const { return comm_; }
  double timeout() const { return timeout_s_; }
  void set_timeout(double seconds);
  int max_tag() const { return max_tag_; }

 private:
  enum class Kind { send, recv, compute };
  struct Op {
    Kind kind;
    int peer;
    int tag;
    std::size_t bytes;
    // Messages over kMaxMessage bytes travel as several MPI messages with the same tag
    // (MPI counts are int); MPI's non-overtaking rule keeps them in order.
    std::vector<MPI_Request> requests;
    std::vector<std::size_t> expected;  // bytes of each piece, checked on receive
    std::size_t completed = 0;          // pieces done so far, in order
    double ready_at = 0;                // compute: wall-clock completion time
    std::uint32_t generation = 0;       // of the slot: a request names slot and generation
    bool live = false;
  };

  Request post(Kind kind, int peer, void* data, std::size_t bytes, int tag);
  // A free slot, reset for a new operation (its vectors keep their capacity), and its request.
  Op& open_slot(Kind kind, int peer, int tag, std::size_t bytes, Request& request);
  Op* find(const Request& r);
  const Op* find(const Request& r) const;
  void close_slot(const Request& r);
  void check_peer_tag(int peer, int tag, const char* operation) const;
  // get/put's checks: the process id of `peer` whose buffer `remote` is.
  int reach(int peer, const MemoryHandle& remote, std::size_t offset, std::size_t bytes,
            const char* op) const;
  std::string describe(const Op& op) const;
  void cancel(Op& op);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int max_tag_ = 32767;
  double timeout_s_;
  // Operations in reused slots, not a map of fresh ones: posting and completing a message is on
  // the latency path, and a map node and two vectors allocated per message cost more than a
  // small message's copy.
  std::vector<Op> ops_;
  std::vector<std::uint32_t> free_slots_;
  ScratchPool scratch_;
  // measured_plan's answers: by grid, the plan and where it came from.
  struct Measured {
    std::vector<int> grid;
    std::shared_ptr<const Plan> plan;
    std::string basis;
  };
  std::vector<Measured> measured_;
  std::vector<int> peer_pids_;  // per rank: its process id where get/put reach it, else 0
  std::size_t eager_limit_ = 0;
};

// A barrier over `comm` that cannot hang: a rank that never arrives ends in ddl::Timeout naming
// `what` (where the barrier is). `quiet`: sleep 50 us between polls instead of yielding, so
// waiting ranks leave the cores to the others (for waits whose wake-up latency is not timed).
void bounded_barrier(MPI_Comm comm, double timeout_s, bool quiet, const char* what);

}  // namespace ddl
