// Non-blocking collectives: a rank starts collectives on several communicators (groups), each
// runs while the rank goes on, and the rank tests or waits on each one's handle, as with
// ncclGroup launches on several communicators or MPI_Iallreduce.
//
// How: each started collective runs, as the blocking call it is, on a stream of its own beside
// the rank's caller: a thread on the real backends and the loopback, a SimGrid actor on the
// rank's host on the simulator (StreamLauncher; the backend supplies it). A communicator is
// one stream, as an NCCL communicator is: collectives started on the same communicator run one
// after the other in the order started; collectives on different communicators run at once, and
// on the simulator their flows share the links they cross. Why streams and not a resumable
// executor: ddl's algorithms are straight functions that play several schedules in turn with
// local work between them (run_ring's windows, ddl's dimensions, auto's pick), and a stream runs
// any of them, on every backend, without cutting each into resumable pieces.
//
// Rules: while a collective is in flight on a communicator, its rank makes no other call on
// that communicator than start() (which queues behind it); the buffer is the collective's
// until the handle completes. Every wait ends: the collective's own waits are bounded as the
// blocking call's are (ddl::Timeout naming rank, peer and tag), and its error is rethrown by
// the handle's test() or wait(). On the simulator a collective in flight plays every step (no
// StepPacing): its pace changes when another collective starts or ends beside it.
#pragma once

#include <exception>
#include <functional>
#include <map>
#include <memory>

#include "algorithms/communicator.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

// One function running beside its rank's caller.
class StreamTask {
 public:
  virtual ~StreamTask() = default;
  // Whether the function has returned or thrown; does not block.
  virtual bool done() = 0;
  // Blocks until done, then rethrows what the function threw, if anything.
  virtual void wait() = 0;
};

// Starts functions beside the caller, on the caller's rank (the backend's kind of stream).
class StreamLauncher {
 public:
  virtual ~StreamLauncher() = default;
  virtual std::shared_ptr<StreamTask> launch(std::function<void()> fn) = 0;
};

// A started collective.
class CollectiveHandle {
 public:
  CollectiveHandle() = default;
  // Whether it has completed (rethrows its error when it failed); does not block.
  bool test();
  // Blocks until it has completed; rethrows its error.
  void wait();
  // The communicator's clock when it began (after the collectives queued before it on the
  // same communicator) and when it ended; end is valid once complete.
  double start_time() const;
  double end_time() const;

 private:
  friend class NonBlocking;
  struct Times {
    double start = 0, end = 0;
  };
  std::shared_ptr<StreamTask> task_;
  std::shared_ptr<Times> times_;
};

// One rank's non-blocking collectives.
class NonBlocking {
 public:
  explicit NonBlocking(StreamLauncher& launcher) : launcher_(launcher) {}
  // Starts `algo` on `comm` over `buffer` (the blocking call's arguments). `comm` and `buffer`
  // must outlive the handle's completion.
  CollectiveHandle start(Communicator& comm, const Algorithm& algo, MutView buffer, DType type,
                         ReduceOp op, const Options& options);

 private:
  StreamLauncher& launcher_;
  // Per communicator, its last collective started: the next one there runs after it.
  std::map<const Communicator*, std::shared_ptr<StreamTask>> last_;
};

}  // namespace ddl
