// The one interface every algorithm is written against. Backends: LoopbackCommunicator (threads
// in one process, tests), SimCommunicator (SimGrid actors), MpiCommunicator / CUDA (real/).
// Memory space (host, device, none) is the backend's business: algorithms only hold views and
// ask the communicator to move, reduce and copy them.
//
// The core is what every backend has: point-to-point messages, local work (reduce, copy,
// divide), scratch, a clock, modelled computation and the trace annotation. What only some
// backends have is a capability behind a small interface of its own, reached through one
// accessor here that answers nullptr where the backend lacks it:
//   one_sided()   - OneSided (one_sided.hpp): get/put into the memory of ranks that share it;
//   step_pacing() - StepPacing (step_pacing.hpp): ending long runs of alike steps early;
//   switch_reduction() - SwitchReduction (switch_reduction.hpp): switches that reduce (NVLS,
//   SHARP);
//   native_library() - NativeLibrary (native_library.hpp): the backend's own collective library
//   (MPI_Allreduce) and the plan auto measured here between it and ddl's algorithms.
// An algorithm asks once ("can you?") and a backend implements only what it has. Decorators
// derive from ForwardingCommunicator (forwarding_communicator.hpp), which forwards the core and
// the accessors; one that must see a capability's calls wraps the capability (the tracer wraps
// OneSided with a ForwardingOneSided of its own).
//
// Groups: split(color, key) (below) has MPI_Comm_split's semantics and returns a communicator
// of its own, with every core method and the capabilities its backend can offer there. Backends
// map its ranks onto their own:
//   loopback  - a rank table (group rank -> world rank) over the same LoopbackWorld; messages
//               match by (communicator id, sender, receiver, tag), the id allocated once per
//               (parent id, the parent's split count, color) in the world's shared state, so
//               every member gets the same id without a message; (color, key) travel by an
//               allgather over the parent in a context of its own that no user tag reaches;
//   simulator - the same rank table and ids; mailboxes are named by the id too; (color, key)
//               are exchanged through the simulation's shared state behind a SimGrid barrier,
//               which costs no simulated time (sim/sim_communicator.hpp);
//   MPI, CUDA - MPI_Comm_split; the child owns its MPI communicator.
// ForwardingCommunicator forwards split; a decorator that sees operations wraps the child it
// returns in a decorator of its own (the tracer, which records world ranks; the fault injector),
// so a group's operations are traced and faulted too. A group learns its place in the machine's
// grid from algorithms/group_grid.hpp.
//
// Non-blocking collectives are not methods here: algorithms/nonblocking.hpp starts a collective
// on a stream of its own beside the rank's caller (a thread; an actor on the simulator) and
// hands back a handle to test or wait on. The design once kept room for a resumable executor
// instead; streams won because algorithms are straight functions that play several schedules in
// turn, and a stream runs any of them unchanged on every backend (nonblocking.hpp says more).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "algorithms/error.hpp"
#include "algorithms/types.hpp"
#include "algorithms/view.hpp"

namespace ddl {

class OneSided;
class StepPacing;
class SwitchReduction;
class NativeLibrary;

// Handle of an outstanding operation. id 0 means "nothing to wait for" (already complete).
struct Request {
  std::uint64_t id = 0;
  bool pending() const { return id != 0; }
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
  // Blocks until one pending request of `rs` completes, resets it to the null request and
  // returns its index (the lowest one where several are complete). Bounded as wait(). At least
  // one must be pending. The executor's independent play (schedule.hpp: ExecOptions::gates)
  // needs it: waiting on one chosen request while another schedule's could complete can
  // deadlock two ranks whose schedules progress in different orders.
  virtual std::size_t wait_any(std::span<Request> rs) = 0;

  // Local work on this rank's memory. avg is never passed here: algorithms reduce with sum and
  // call divide() once at the end.
  virtual void reduce(MutView inout, ConstView in, DType type, ReduceOp op) = 0;
  virtual void copy(MutView dst, ConstView src) = 0;
  virtual void divide(MutView inout, DType type, std::size_t divisor) = 0;

  // Scratch memory in the backend's memory space, pooled so repeated collectives do not
  // allocate (page faults are expensive). Null data in timing-only mode. Release what you take.
  virtual MutView acquire_scratch(std::size_t bytes) = 0;
  virtual void release_scratch(MutView scratch) = 0;

  // Modelled computation (workload driver): simulated execution on the simulator, a timed
  // busy period on real hardware. Completes when waited.
  virtual Request compute(double seconds) = 0;

  // Annotation for traces: which phase ("reduce_scatter", "allgather", ...) and which
  // dimension (0-based, -1 for none) the following operations belong to.
  virtual void set_phase(const char* phase, int dimension) {
    (void)phase;
    (void)dimension;
  }

  // The capabilities (see above): nullptr where this backend has none. The object lives as long
  // as the communicator.
  virtual OneSided* one_sided() { return nullptr; }
  virtual StepPacing* step_pacing() { return nullptr; }
  virtual SwitchReduction* switch_reduction() { return nullptr; }
  virtual NativeLibrary* native_library() { return nullptr; }

  // Groups, MPI_Comm_split's semantics: collective over every rank of this communicator; the
  // ranks that pass one color form a new communicator, ranked by key and then by their rank
  // here; a negative color gets nullptr (the rank is in no new group). The caller owns the
  // result, which must not outlive this communicator.
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;
};

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
