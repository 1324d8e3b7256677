// One iteration of a workload (workload.hpp): compute split by multiply-adds (or the measured
// times), gradient buckets filled in reverse layer order.
#include <algorithm>
#include <numeric>

#include "algorithms/error.hpp"
#include "workloads/workload.hpp"

namespace ddl::harness {

double IterationPlan::compute_s() const {
  return std::accumulate(forward_s.begin(), forward_s.end(), 0.0) +
         std::accumulate(backward_s.begin(), backward_s.end(), 0.0);
}

IterationPlan plan_iteration(const Workload& w, std::size_t batch, const BucketOptions& opts) {
  if (batch == 0) throw InvalidArgument("the batch must be at least 1 image per GPU");
  if (opts.first_bucket_bytes == 0 || opts.bucket_bytes == 0)
    throw InvalidArgument("bucket sizes must be positive (got first " +
                          std::to_string(opts.first_bucket_bytes) + " B, then " +
                          std::to_string(opts.bucket_bytes) + " B)");
  DDL_CHECK(opts.bytes_per_param > 0, "bytes_per_param must be positive");
  IterationPlan plan;
  plan.batch = batch;
  plan.params = w.total_params();
  std::uint64_t macs = 0;
  for (const Layer& l : w.layers) macs += l.forward_macs;
  const double scale = static_cast<double>(batch) / static_cast<double>(w.reference_batch);
  const double compute = w.reference_iteration_s * scale;
  const double forward = compute / (1 + w.backward_to_forward);
  const double backward = compute - forward;
  // A layer's share of a pass: its measured time, or its part of the pass's multiply-adds.
  const auto forward_of = [&](const Layer& l) {
    return w.measured_times
               ? l.forward_s * scale
               : forward * static_cast<double>(l.forward_macs) / static_cast<double>(macs);
  };
  const auto backward_of = [&](const Layer& l) {
    return w.measured_times
               ? l.backward_s * scale
               : backward * static_cast<double>(l.forward_macs) / static_cast<double>(macs);
  };
  for (const Layer& l : w.layers) plan.forward_s.push_back(forward_of(l));

  std::size_t filled = 0;  // bytes in the open bucket
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    const Layer& l = w.layers[w.layers.size() - 1 - i];
    plan.backward_s.push_back(backward_of(l));
    filled += l.params * opts.bytes_per_param;
    const std::size_t cap = plan.buckets.empty() ? opts.first_bucket_bytes : opts.bucket_bytes;
    const bool last = i + 1 == w.layers.size();
    if ((filled >= cap || last) && filled > 0) {
      plan.buckets.push_back({plan.gradient_bytes, filled, i});
      plan.gradient_bytes += filled;
      filled = 0;
    }
  }
  return plan;
}

}  // namespace ddl::harness
