// The workload driver on the loopback communicator (threads as ranks, two per rank): every
// gradient byte is allreduced exactly once per iteration, buckets run in the same order on every
// rank, and the optimizer step sees the reduced gradients, for every allreduce algorithm.
#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>
#include <thread>

#include "loopback/loopback_communicator.hpp"
#include "workloads/workload_driver.hpp"

using namespace ddl;
using namespace ddl::harness;

namespace {

// Seven layers, 1 ms of compute in all; 1-byte-aligned parameter counts so buckets cut oddly.
IterationPlan tiny_plan() {
  std::istringstream in(
      "# model = tiny\n# reference_batch = 1\n# reference_iteration_ms = 1\n# backward_to_forward "
      "= 2\n"
      "layer,kind,params,forward_macs\n"
      "l0,conv,37,5\nl1,bn,4,1\nl2,conv,129,9\nl3,pool,0,1\nl4,conv,300,7\nl5,bn,2,1\nl6,fc,51,"
      "3\n");
  BucketOptions b;
  b.first_bucket_bytes = 100;
  b.bucket_bytes = 512;
  return plan_iteration(parse_workload(in, "tiny"), 1, b);
}

struct RankRecord {
  std::vector<BucketEvent> events;
  std::vector<float> gradients, parameters;
  std::vector<IterationTimes> times;
};

// Gradient element i of rank r is (r + 1) * (i % 7 + 1), parameters i % 5: after one iteration
// every gradient is (i % 7 + 1) * p(p+1)/2 (a bucket reduced twice would be p times that), and
// the parameters hold their start plus that sum (the optimizer ran after the last allreduce).
std::vector<RankRecord> run(const IterationPlan& plan, const Algorithm& algo,
                            const Options& options, int ranks, int iterations) {
  LoopbackWorld world(ranks, std::chrono::seconds(30));
  std::vector<RankRecord> records(static_cast<std::size_t>(ranks));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      RankRecord& rec = records[static_cast<std::size_t>(r)];
      const std::size_t n = plan.gradient_bytes / sizeof(float);
      for (std::size_t i = 0; i < n; ++i) {
        rec.gradients.push_back(static_cast<float>((r + 1) * static_cast<int>(i % 7 + 1)));
        rec.parameters.push_back(static_cast<float>(i % 5));
      }
      try {
        LoopbackCommunicator compute(world, r), comm(world, r);
        StreamConfig config{&plan, &algo, options,
                            MutView{rec.gradients.data(), plan.gradient_bytes},
                            MutView{rec.parameters.data(), plan.gradient_bytes}};
        rec.times = run_rank_threads(compute, comm, config, iterations,
                                     [&rec](const BucketEvent& e) { rec.events.push_back(e); });
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
        world.abort("rank " + std::to_string(r) + " failed");
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return records;
}

}  // namespace

TEST_CASE(
    "workload driver: the tiny plan has several buckets, one of them after a parameter-free layer",
    "[workload][loopback]") {
  const IterationPlan plan = tiny_plan();
  // Reverse: l6 204 B (>= 100, first), l5 8, l4 1200 (>= 512), l3 0, l2 516 (>= 512), l1+l0 164.
  REQUIRE(plan.buckets.size() == 4);
  CHECK(plan.buckets[1].bytes == 1208);
  CHECK(plan.buckets[2].bytes == 516);
  CHECK(plan.buckets[2].ready_after == 4);
  CHECK(plan.gradient_bytes == 523 * 4);
}

TEST_CASE(
    "workload driver: every gradient byte is allreduced exactly once per iteration, buckets in one "
    "order",
    "[workload][loopback]") {
  const IterationPlan plan = tiny_plan();
  const int p = 4;
  for (const std::string& name : algorithm_names(Collective::allreduce)) {
    const Algorithm& a = find_algorithm(name);
    if (a.needs_in_switch || a.needs_native_library) continue;  // loopback has neither
    INFO("algorithm " << name);
    Options options;
    options.dims = Dims::parse("2x2");
    options.rings = 2;
    const std::vector<RankRecord> records = run(plan, find_algorithm(name), options, p, 1);
    for (int r = 0; r < p; ++r) {
      INFO("rank " << r);
      const RankRecord& rec = records[static_cast<std::size_t>(r)];
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < rec.gradients.size(); ++i) {
        const float sum = static_cast<float>((i % 7 + 1) * p * (p + 1) / 2);
        wrong += rec.gradients[i] != sum || rec.parameters[i] != static_cast<float>(i % 5) + sum;
      }
      CHECK(wrong == 0);
      REQUIRE(rec.events.size() == plan.buckets.size());
      std::size_t offset = 0;
      for (std::size_t b = 0; b < rec.events.size(); ++b) {
        CHECK(rec.events[b].bucket == b);
        CHECK(rec.events[b].offset == offset);
        CHECK(rec.events[b].bytes == plan.buckets[b].bytes);
        offset += rec.events[b].bytes;
      }
      CHECK(offset == plan.gradient_bytes);
      REQUIRE(rec.times.size() == 1);
      // The optimizer starts only when backward and every allreduce are done.
      CHECK(rec.times[0].optimizer_start >= rec.times[0].backward_end);
      CHECK(rec.times[0].optimizer_start >= rec.events.back().end);
    }
  }
}

TEST_CASE("workload driver: consecutive iterations repeat the same bucket sequence on every rank",
          "[workload][loopback]") {
  const IterationPlan plan = tiny_plan();
  const std::vector<RankRecord> records = run(plan, find_algorithm("ring"), Options{}, 3, 3);
  for (const RankRecord& rec : records) {
    REQUIRE(rec.events.size() == 3 * plan.buckets.size());
    for (std::size_t k = 0; k < rec.events.size(); ++k) {
      CHECK(rec.events[k].iteration == static_cast<int>(k / plan.buckets.size()));
      CHECK(rec.events[k].bucket == k % plan.buckets.size());
      CHECK(rec.events[k].offset == records[0].events[k].offset);
    }
    CHECK(rec.times.size() == 3);
  }
}

TEST_CASE("workload driver: one rank, nothing to reduce, the optimizer still applies the gradients",
          "[workload][loopback]") {
  const IterationPlan plan = tiny_plan();
  const std::vector<RankRecord> records = run(plan, find_algorithm("ddl"), Options{}, 1, 1);
  const RankRecord& rec = records[0];
  CHECK(rec.events.size() == plan.buckets.size());
  for (std::size_t i = 0; i < rec.gradients.size(); ++i) {
    CHECK(rec.gradients[i] == static_cast<float>(i % 7 + 1));
    CHECK(rec.parameters[i] == static_cast<float>(i % 5 + i % 7 + 1));
  }
}

TEST_CASE("workload driver: a failing stream stops the other and its error comes back",
          "[workload][loopback]") {
  const IterationPlan plan = tiny_plan();
  LoopbackWorld world(1);
  LoopbackCommunicator compute(world, 0), comm(world, 0);
  std::vector<float> g(plan.gradient_bytes / 4), w(plan.gradient_bytes / 4);
  const StreamConfig config{&plan, &find_algorithm("ring"), Options{},
                            MutView{g.data(), plan.gradient_bytes},
                            MutView{w.data(), plan.gradient_bytes}};
  CHECK_THROWS_WITH(run_rank_threads(compute, comm, config, 2,
                                     [](const BucketEvent& e) {
                                       if (e.bucket == 1)
                                         throw InvalidArgument("observer refused bucket 1");
                                     }),
                    Catch::Contains("observer refused bucket 1"));
  ThreadSignal s(0.01);
  CHECK_THROWS_AS(s.wait(), Timeout);
  s.post();
  CHECK_NOTHROW(s.wait());
}
