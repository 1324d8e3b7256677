// The training-iteration driver: data-parallel SGD with gradient buckets whose allreduces
// overlap the backward pass, as PyTorch DDP does it. Backend-agnostic: it only talks to
// Communicators and to a StreamSignal, so the simulator (SimGrid actors and semaphores) and the
// real backends (threads) run the same code.
//
// Model. Each rank runs two streams at once, each with its own Communicator of that rank (the
// way a GPU runs a compute stream beside the stream/thread that drives communication):
//   compute stream - the forward pass layer by layer, then the backward pass layer by layer in
//                    reverse, each layer one compute(seconds) waited in turn, back to back: the
//                    compute stream never waits for communication before the backward pass is
//                    done. When the layer that fills bucket b completes, it posts `ready`. After
//                    the last layer it waits on `done` (every bucket reduced), then runs the
//                    optimizer step. The iteration ends when that step ends.
//   comm stream    - for each bucket in order: wait on `ready`, then allreduce (sum) that
//                    bucket's slice of the gradient buffer, blocking, one bucket at a time (as
//                    one communication stream serialises them). After the last bucket it posts
//                    `done`.
// So bucket b's allreduce starts at max(ready time of b, end of bucket b-1's allreduce), and
//   iteration = max(forward + backward, end of the last allreduce) + optimizer step.
// Why not one stream that runs a bucket's allreduce while waiting for the next layer's
// compute request: the blocking allreduce would hold back the issue of every later layer, so
// once an allreduce outlasts one layer, compute would stall behind communication, which a GPU
// does not do.
//
// What real iterations pay beyond that (compute jitter, interference of communication with
// compute, bucket launches, data loading) is StreamConfig::effects (training_effects.hpp), off by
// default.
//
// The optimizer step is plain SGD, w -= lr * g, charged as one reduce of the gradients into the
// parameters (reads 2n, writes n bytes: on the simulator 3n / memory bandwidth), in the
// gradients' type (a mixed-precision optimizer's fp32 master weights are not modelled). Gradients
// are summed, not averaged: the 1/p is folded into the learning rate (linear scaling, Goyal et
// al.).
//
// Tags: bucket b's allreduce uses Options::tag_base = b * bucket_tag_spacing(options), so
// allreduces that overlap across ranks (a fast rank already on bucket b+1) never cross-match; the
// spacing exceeds the schedules any algorithm runs at once (ddl: `rings`, dbtree: 4).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/registry.hpp"
#include "workloads/training_effects.hpp"
#include "workloads/workload.hpp"

namespace ddl::harness {

// A counting semaphore between the two streams of one rank; each backend supplies its own
// (SimGrid's blocks an actor, ThreadSignal a thread).
class StreamSignal {
 public:
  virtual ~StreamSignal() = default;
  virtual void post() = 0;
  virtual void wait() = 0;  // blocks until a post is available, then consumes it
};

// What both streams of one rank share.
struct StreamConfig {
  const IterationPlan* plan = nullptr;
  const Algorithm* algo = nullptr;  // an allreduce
  Options options;                  // tag_base is set per bucket
  MutView gradients;                // plan->gradient_bytes; null data in timing-only mode
  MutView parameters;               // the same size
  DType dtype = DType::float32;     // of the gradients and parameters
  TrainingEffects effects;
  // The rank's count of buckets handed to its comm stream and not yet reduced, shared by its two
  // streams (the compute stream counts a bucket in when it posts it, so whether a layer started
  // during communication does not depend on which stream the scheduler ran first). Required
  // when effects.interference > 0.
  std::atomic<int>* buckets_pending = nullptr;
  // Lets the calling stream's time pass without occupying its device (a bucket launch is host
  // work). Required when effects.bucket_launch_s > 0.
  std::function<void(double)> pause;
};

// Simulated or wall-clock seconds on the rank's clock.
struct IterationTimes {
  double start = 0;
  double backward_end = 0;     // forward + backward done
  double optimizer_start = 0;  // every allreduce done (and backward)
  double end = 0;
  // What one GPU alone would take for this iteration: the nominal forward + backward, the data
  // loading and the optimizer step (no jitter, no interference, nothing to wait for).
  double single_gpu_s = 0;

  double iteration_s() const { return end - start; }
  // Time the compute stream was busy: forward, backward and the optimizer step.
  double compute_s() const { return (backward_end - start) + (end - optimizer_start); }
  // Time the compute stream waited for communication after the backward pass.
  double exposed_comm_s() const { return optimizer_start - backward_end; }
};

struct BucketEvent {
  int iteration = 0;
  std::size_t bucket = 0;
  std::size_t offset = 0;
  std::size_t bytes = 0;
  double start = 0;
  double end = 0;
};
using BucketObserver = std::function<void(const BucketEvent&)>;

int bucket_tag_spacing(const Options& options);

// One iteration of each stream; run them concurrently, with the same `ready` and `done`.
// `iteration` counts from 0 and picks the jitter draw.
IterationTimes compute_iteration(Communicator& comm, const StreamConfig& config,
                                 StreamSignal& ready, StreamSignal& done, int iteration);
void comm_iteration(Communicator& comm, const StreamConfig& config, StreamSignal& ready,
                    StreamSignal& done, int iteration, const BucketObserver& observe = {});

// StreamSignal for threads. abort() wakes a waiter with BackendError (the other stream failed);
// a wait longer than `timeout_s` throws Timeout.
class ThreadSignal : public StreamSignal {
 public:
  explicit ThreadSignal(double timeout_s = 60) : timeout_s_(timeout_s) {}
  void post() override;
  void wait() override;
  void abort(const std::string& why);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::size_t count_ = 0;
  std::string aborted_;
  const double timeout_s_;
};

// Runs `iterations` iterations of one rank on two threads: the calling thread is the compute
// stream (on `compute`), a second thread the comm stream (on `comm`). Either stream's
// exception stops the other and is rethrown here. Returns each iteration's times. The
// iterations are numbered from `first_iteration` (the jitter draws).
std::vector<IterationTimes> run_rank_threads(Communicator& compute, Communicator& comm,
                                             const StreamConfig& config, int iterations,
                                             const BucketObserver& observe = {},
                                             double timeout_s = 60, int first_iteration = 0);

}  // namespace ddl::harness
