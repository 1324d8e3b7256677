#include "workloads/workload_driver.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include "algorithms/error.hpp"

namespace ddl::harness {

namespace {

void check_config(const StreamConfig& c) {
  DDL_CHECK(c.plan != nullptr && c.algo != nullptr,
            "workload stream without a plan or an algorithm");
  DDL_CHECK(c.algo->collective == Collective::allreduce,
            "workload streams need an allreduce algorithm");
  DDL_CHECK(
      c.gradients.bytes == c.plan->gradient_bytes && c.parameters.bytes == c.plan->gradient_bytes,
      "gradient and parameter buffers must hold the plan's gradient bytes");
  validate(c.effects);
  DDL_CHECK(c.effects.interference == 0 || c.buckets_pending != nullptr,
            "workload streams with interference need the rank's buckets_pending count");
  DDL_CHECK(c.effects.bucket_launch_s == 0 || static_cast<bool>(c.pause),
            "workload streams with a bucket launch time need a pause function");
}

void compute_for(Communicator& comm, double seconds) {
  Request r = comm.compute(seconds);
  comm.wait(r);
}

}  // namespace

int bucket_tag_spacing(const Options& options) {
  return std::max(64, options.rings);
}

IterationTimes compute_iteration(Communicator& comm, const StreamConfig& config,
                                 StreamSignal& ready, StreamSignal& done, int iteration) {
  check_config(config);
  const IterationPlan& plan = *config.plan;
  const TrainingEffects& fx = config.effects;
  const double jitter = jitter_factor(fx, comm.rank(), iteration);
  IterationTimes t;
  t.start = comm.now();
  if (fx.data_loading_s > 0) compute_for(comm, fx.data_loading_s);
  for (double s : plan.forward_s) compute_for(comm, s * jitter);
  std::size_t next_bucket = 0;
  for (std::size_t i = 0; i < plan.backward_s.size(); ++i) {
    const bool contended = fx.interference > 0 && config.buckets_pending->load() > 0;
    compute_for(comm, plan.backward_s[i] * jitter * (contended ? 1 + fx.interference : 1));
    // A layer with no parameters fills no bucket, hence the loop (and no post for it).
    while (next_bucket < plan.buckets.size() && plan.buckets[next_bucket].ready_after == i) {
      if (config.buckets_pending) ++*config.buckets_pending;  // before the post: never below 0
      ready.post();
      ++next_bucket;
    }
  }
  t.backward_end = comm.now();
  done.wait();
  t.optimizer_start = comm.now();
  comm.reduce(config.parameters, config.gradients, config.dtype, ReduceOp::sum);
  t.end = comm.now();
  t.single_gpu_s = fx.data_loading_s + plan.compute_s() + (t.end - t.optimizer_start);
  return t;
}

void comm_iteration(Communicator& comm, const StreamConfig& config, StreamSignal& ready,
                    StreamSignal& done, int iteration, const BucketObserver& observe) {
  check_config(config);
  Options options = config.options;
  const int spacing = bucket_tag_spacing(options);
  for (std::size_t b = 0; b < config.plan->buckets.size(); ++b) {
    const Bucket& bucket = config.plan->buckets[b];
    ready.wait();
    options.tag_base = config.options.tag_base + static_cast<int>(b) * spacing;
    if (config.effects.bucket_launch_s > 0) config.pause(config.effects.bucket_launch_s);
    BucketEvent e{iteration, b, bucket.offset, bucket.bytes, comm.now(), 0};
    config.algo->run(comm, config.gradients.slice(bucket.offset, bucket.bytes), config.dtype,
                     ReduceOp::sum, options);
    if (config.buckets_pending) --*config.buckets_pending;
    e.end = comm.now();
    if (observe) observe(e);
  }
  done.post();
}

void ThreadSignal::post() {
  std::lock_guard lock(mutex_);
  ++count_;
  cv_.notify_all();
}

void ThreadSignal::wait() {
  std::unique_lock lock(mutex_);
  const bool ok = cv_.wait_for(lock, std::chrono::duration<double>(timeout_s_),
                               [&] { return count_ > 0 || !aborted_.empty(); });
  if (!aborted_.empty()) throw BackendError("workload stream abandoned: " + aborted_);
  if (!ok)
    throw Timeout("workload stream waited more than " + std::to_string(timeout_s_) +
                  " s for the other stream");
  --count_;
}

void ThreadSignal::abort(const std::string& why) {
  std::lock_guard lock(mutex_);
  if (aborted_.empty()) aborted_ = why;
  cv_.notify_all();
}

std::vector<IterationTimes> run_rank_threads(Communicator& compute, Communicator& comm,
                                             const StreamConfig& config, int iterations,
                                             const BucketObserver& observe, double timeout_s,
                                             int first_iteration) {
  ThreadSignal ready(timeout_s), done(timeout_s);
  // The first failure is the cause; the other stream's error is then only its knock-on.
  std::mutex error_mutex;
  std::exception_ptr first_error;
  const auto fail = [&](ThreadSignal& other, const char* why) {
    {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
    other.abort(why);
  };
  std::thread comm_thread([&] {
    try {
      for (int it = 0; it < iterations; ++it)
        comm_iteration(comm, config, ready, done, first_iteration + it, observe);
    } catch (...) {
      fail(done, "the communication stream failed");
    }
  });
  std::vector<IterationTimes> times;
  try {
    for (int it = 0; it < iterations; ++it)
      times.push_back(compute_iteration(compute, config, ready, done, first_iteration + it));
  } catch (...) {
    fail(ready, "the compute stream failed");
  }
  comm_thread.join();
  if (first_error) std::rethrow_exception(first_error);
  return times;
}

}  // namespace ddl::harness
