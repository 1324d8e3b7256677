// The one interface every algorithm is written against. Backends: LoopbackCommunicator (threads
// in one process, tests), SimCommunicator (SimGrid actors), MpiCommunicator / CUDA (real/).
// Memory space (host, device, none) is the backend's business: algorithms only hold views and
// ask the communicator to move, reduce and copy them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "algorithms/error.hpp"
#include "algorithms/types.hpp"
#include "algorithms/view.hpp"

namespace ddl {

// Handle of an outstanding operation. id 0 means "nothing to wait for" (already complete).
struct Request {
  std::uint64_t id = 0;
  bool pending() const { return id != 0; }
};

// How ranks that share memory reach a buffer of this rank (get/put below): plain words that an
// algorithm sends to its peers as a message. `owner` is the backend's (a process id on MPI).
struct MemoryHandle {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::uint64_t owner = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Seconds: simulated time on the simulator, a monotonic wall clock on real backends.
  virtual double now() = 0;

  // Point-to-point. Matching is by (peer, tag), FIFO per (sender, receiver, tag); the receive
  // size must equal the send size (a mismatch is an error, not a truncation). The send buffer
  // must not be written until its request completes.
  virtual Request isend(int peer, ConstView data, int tag) = 0;
  virtual Request irecv(int peer, MutView data, int tag) = 0;
  // Blocks until done, then resets r to the null request. Real backends bound the wait by a
  // timeout and throw ddl::Timeout naming rank, peer, tag and operation.
  virtual void wait(Request& r) = 0;
  virtual void wait_all(std::span<Request> rs) {
    for (Request& r : rs) wait(r);
  }

  // Local work on this rank's memory. avg is never passed here: algorithms reduce with sum and
  // call divide() once at the end.
  virtual void reduce(MutView inout, ConstView in, DType type, ReduceOp op) = 0;
  virtual void copy(MutView dst, ConstView src) = 0;
  virtual void divide(MutView inout, DType type, std::size_t divisor) = 0;

  // Scratch memory in the backend's memory space, pooled so repeated collectives do not
  // allocate (page faults are expensive). Null data in timing-only mode. Release what you take.
  virtual MutView acquire_scratch(std::size_t bytes) = 0;
  virtual void release_scratch(MutView scratch) = 0;

  // One-sided access to the memory of ranks that share it: processes of one machine (the
  // kernel's cross-memory attach), threads of one process, GPUs of one simulated node. A rank
  // copies a byte range of a peer's buffer into its own memory (get) or its own bytes into it
  // (put) while the peer does something else; the algorithm exchanges handles by messages and
  // orders the accesses itself (allreduce_direct.cpp). shares_memory_with(peer): whether
  // get/put reach that peer; the answer is the same on both ranks. handle(buffer): this rank's
  // buffer as peers reach it. get/put copy between `local` and bytes [offset, offset +
  // local.bytes) of the peer's buffer behind `remote` (a range outside it is an error) and
  // return when the copy is done. Backends without it answer false and throw.
  virtual bool shares_memory_with(int peer) const {
    (void)peer;
    return false;
  }
  virtual MemoryHandle handle(MutView buffer) {
    (void)buffer;
    throw InvalidArgument("this backend has no one-sided access to other ranks' memory");
  }
  virtual void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) {
    (void)peer, (void)remote, (void)offset, (void)local;
    throw InvalidArgument("this backend has no one-sided access to other ranks' memory");
  }
  virtual void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) {
    (void)peer, (void)remote, (void)offset, (void)local;
    throw InvalidArgument("this backend has no one-sided access to other ranks' memory");
  }
  // The message size from which a message to a peer that shares memory goes by rendezvous
  // (the send completes only once the receiver has copied it and said so), as the transport
  // reports it; 0 when it is not known or every message goes eagerly. `auto` prices those
  // messages one α dearer (LinkCost::rendezvous_bytes).
  virtual std::size_t eager_limit() const { return 0; }

  // Modelled computation (workload driver): simulated execution on the simulator, a timed
  // busy period on real hardware. Completes when waited.
  virtual Request compute(double seconds) = 0;

  // Step extrapolation (algorithms/step_runs.hpp): a timing-only backend may end a long run of
  // alike steps early, once the ranks have settled into a common pace, and spend the time of the
  // steps left without playing them. Real backends never do: every step is played.
  // extrapolates_steps(): whether it may (the executor then announces runs, and a long ring is
  // built a window at a time only as far as it is played). begin_alike_run(): a run of `length`
  // alike steps starts; every rank begins the same runs in the same order. alike_step_done():
  // after each step of that run, `left` steps remaining; true when the backend has spent their
  // time, and they are then not played (every rank gets the same answer at the same step).
  virtual bool extrapolates_steps() const { return false; }
  virtual void begin_alike_run(std::size_t length) { (void)length; }
  virtual bool alike_step_done(std::size_t left) {
    (void)left;
    return false;
  }

  // Annotation for traces: which phase ("reduce_scatter", "allgather", ...) and which
  // dimension (0-based, -1 for none) the following operations belong to.
  virtual void set_phase(const char* phase, int dimension) {
    (void)phase;
    (void)dimension;
  }
};

// For backends' get/put: throws InvalidArgument unless [offset, offset + bytes) lies inside the
// buffer behind `remote`.
inline void check_remote_range(const MemoryHandle& remote, std::size_t offset, std::size_t bytes,
                               const char* op, int peer) {
  if (offset > remote.bytes || bytes > remote.bytes - offset)
    throw InvalidArgument(std::string(op) + ": bytes [" + std::to_string(offset) + ", " +
                          std::to_string(offset + bytes) + ") are outside peer " +
                          std::to_string(peer) + "'s buffer of " + std::to_string(remote.bytes) +
                          " bytes");
}

// RAII hold on scratch memory.
class Scratch {
 public:
  Scratch(Communicator& comm, std::size_t bytes)
      : comm_(comm), view_(comm.acquire_scratch(bytes)) {}
  ~Scratch() { comm_.release_scratch(view_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  MutView view() const { return view_; }

 private:
  Communicator& comm_;
  MutView view_;
};

}  // namespace ddl
