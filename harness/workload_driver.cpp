#include "harness/workload_driver.hpp"

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
}

}  // namespace

int bucket_tag_spacing(const Options& options) {
  return std::max(64, options.rings);
}

IterationTimes compute_iteration(Communicator& comm, const StreamConfig& config,
                                 StreamSignal& ready, StreamSignal& done) {
  check_config(config);
  const IterationPlan& plan = *config.plan;
  IterationTimes t;
  t.start = comm.now();
  for (double s : plan.forward_s) {
    Request r = comm.compute(s);
    comm.wait(r);
  }
  std::size_t next_bucket = 0;
  for (std::size_t i = 0; i < plan.backward_s.size(); ++i) {
    Request r = comm.compute(plan.backward_s[i]);
    comm.wait(r);
    // A layer with no parameters fills no bucket, hence the loop (and no post for it).
    while (next_bucket < plan.buckets.size() && plan.buckets[next_bucket].ready_after == i) {
      ready.post();
      ++next_bucket;
    }
  }
  t.backward_end = comm.now();
  done.wait();
  t.optimizer_start = comm.now();
  comm.reduce(config.parameters, config.gradients, DType::float32, ReduceOp::sum);
  t.end = comm.now();
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
    BucketEvent e{iteration, b, bucket.offset, bucket.bytes, comm.now(), 0};
    config.algo->run(comm, config.gradients.slice(bucket.offset, bucket.bytes), DType::float32,
                     ReduceOp::sum, options);
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
                                             const BucketObserver& observe, double timeout_s) {
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
        comm_iteration(comm, config, ready, done, it, observe);
    } catch (...) {
      fail(done, "the communication stream failed");
    }
  });
  std::vector<IterationTimes> times;
  try {
    for (int it = 0; it < iterations; ++it)
      times.push_back(compute_iteration(compute, config, ready, done));
  } catch (...) {
    fail(ready, "the compute stream failed");
  }
  comm_thread.join();
  if (first_error) std::rethrow_exception(first_error);
  return times;
}

}  // namespace ddl::harness
