// Workload files (workloads/workload.hpp, format: workloads/README.md). An accepted workload must
// plan an iteration whose buckets cover every gradient byte exactly once, with finite times.
#include <cmath>
#include <sstream>

#include "fuzz/fuzz_common.hpp"
#include "workloads/workload.hpp"

using namespace ddl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(fuzz::text(data, size));
  DDL_FUZZ_ACCEPT_ERRORS({
    const harness::Workload w = harness::parse_workload(in, "fuzz.csv");
    harness::BucketOptions buckets;
    const harness::IterationPlan plan = harness::plan_iteration(w, w.reference_batch, buckets);
    fuzz::require(plan.gradient_bytes == w.total_params() * buckets.bytes_per_param,
                  "gradient bytes");
    std::size_t covered = 0;
    for (const harness::Bucket& b : plan.buckets) {
      fuzz::require(b.offset == covered, "buckets are contiguous");
      covered += b.bytes;
    }
    fuzz::require(covered == plan.gradient_bytes, "buckets cover the gradients");
    fuzz::require(std::isfinite(plan.compute_s()) && plan.compute_s() > 0, "finite compute time");
  });
  return 0;
}
