// Groups on the simulator (SimCommunicator::split): a ring allreduce inside groups of 2 and 4
// on star_8.xml gives the exact data in payload mode and the closed-form time of a ring over the
// group's size, as test_closed_form.cpp computes it for the whole star; the split itself costs
// no simulated time. Two groups whose collectives cross one link at once share it: on
// trunk_4.xml each takes twice the time it takes alone. The simulation runs in a child process of
// its own (one engine per process).
#include <catch2/catch.hpp>
#include <cstdio>
#include <memory>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "child_process.hpp"
#include "sim/isolated.hpp"
#include "sim/platform.hpp"
#include "sim/sim_communicator.hpp"

namespace {

// star_8.xml: two 10 GB/s, 1 us links between any pair; 100 GB/s memory.
constexpr double kAlpha = 2e-6, kBeta = 1e-10, kGamma = 3.0 / 100e9;
constexpr std::size_t kCount = std::size_t{1} << 18;  // float32: 1 MiB
constexpr int kRanks = 8;

// A ring allreduce over g ranks of S bytes: 2(g-1)(a + S/g b) + (g-1) S/g g.
double ring_time(double g, double bytes) {
  return 2 * (g - 1) * (kAlpha + bytes / g * kBeta) + (g - 1) * bytes / g * kGamma;
}

struct Outcome {
  std::size_t wrong = 0;
  double split_time = 0;  // simulated seconds the splits took, summed, max over ranks
  double pair_time = 0;   // the allreduce in the group of 2, max over ranks
  double quad_time = 0;   // the allreduce in the group of 4
  int finished = 0;
};

// Runs `algo` in `group` on the check pattern: the wrong elements and the simulated seconds.
double allreduce_in(ddl::Communicator& group, std::size_t& wrong) {
  std::vector<float> buf(kCount);
  ddl::fill_input(buf.data(), kCount, ddl::DType::float32, ddl::ReduceOp::sum,
                  ddl::Collective::allreduce, group.rank(), group.size(), 0);
  const double start = group.now();
  ddl::find_algorithm("ring").run(group, {buf.data(), kCount * sizeof(float)}, ddl::DType::float32,
                                  ddl::ReduceOp::sum, ddl::Options{});
  const double elapsed = group.now() - start;
  wrong += ddl::check_output(buf.data(), kCount, ddl::DType::float32, ddl::ReduceOp::sum,
                             ddl::Collective::allreduce, group.rank(), group.size(), 0)
               .wrong;
  return elapsed;
}

std::string simulate_groups() {
  auto& engine = ddl::sim::start_engine("test_groups_sim");
  const ddl::sim::Platform platform =
      ddl::sim::load_platform(engine, ddl::test::fixture("star_8.xml"));
  const ddl::sim::SimWorld world{&platform, true};
  Outcome out;
  for (int r = 0; r < kRanks; ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          ddl::sim::SimCommunicator comm(world, r);
          const double before = comm.now();
          // Pairs strided by 4 ({0,4}, {1,5}, ...); quads of every other rank, reversed by key.
          const std::unique_ptr<ddl::Communicator> pair = comm.split(r % 4, r);
          const std::unique_ptr<ddl::Communicator> quad = comm.split(r % 2, -r);
          out.split_time = std::max(out.split_time, comm.now() - before);
          out.pair_time = std::max(out.pair_time, allreduce_in(*pair, out.wrong));
          out.quad_time = std::max(out.quad_time, allreduce_in(*quad, out.wrong));
          ++out.finished;
        });
  engine.run();
  if (out.finished != kRanks) throw ddl::BackendError("not every rank finished");
  char text[128];
  std::snprintf(text, sizeof text, "%zu %.17g %.17g %.17g", out.wrong, out.split_time,
                out.pair_time, out.quad_time);
  return text;
}

}  // namespace

namespace {

// trunk_4.xml: gpu0, gpu1 | trunk 1 GB/s each way | gpu2, gpu3; nothing else costs time.
constexpr double kTrunk = 1e9;
constexpr std::size_t kSendrecvCount = std::size_t{1} << 20;  // float32: 4 MiB

// Groups {0, 2} and {1, 3}, each a sendrecv across the trunk: first group {0, 2} alone, then
// both at once. "wrong alone together" (simulated seconds, max over the group's ranks).
std::string simulate_shared_trunk() {
  auto& engine = ddl::sim::start_engine("test_groups_trunk");
  const ddl::sim::Platform platform =
      ddl::sim::load_platform(engine, ddl::test::fixture("trunk_4.xml"));
  const ddl::sim::SimWorld world{&platform, true};
  std::size_t wrong = 0;
  double alone = 0, together = 0;
  const ddl::Algorithm& sendrecv = ddl::find_algorithm("sendrecv");
  auto run = [&](ddl::Communicator& group) {
    std::vector<float> buf(kSendrecvCount);
    ddl::fill_input(buf.data(), buf.size(), ddl::DType::float32, ddl::ReduceOp::sum,
                    ddl::Collective::sendrecv, group.rank(), group.size(), 0);
    const double start = group.now();
    sendrecv.run(group, {buf.data(), buf.size() * sizeof(float)}, ddl::DType::float32,
                 ddl::ReduceOp::sum, ddl::Options{});
    wrong += ddl::check_output(buf.data(), buf.size(), ddl::DType::float32, ddl::ReduceOp::sum,
                               ddl::Collective::sendrecv, group.rank(), group.size(), 0)
                 .wrong;
    return group.now() - start;
  };
  for (int r = 0; r < 4; ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          ddl::sim::SimCommunicator comm(world, r);
          const std::unique_ptr<ddl::Communicator> group = comm.split(r % 2, r);
          if (r % 2 == 0) alone = std::max(alone, run(*group));
          comm.split(0, r);  // a barrier (split costs no time): group {1, 3} starts with {0, 2}
          together = std::max(together, run(*group));
        });
  engine.run();
  char text[96];
  std::snprintf(text, sizeof text, "%zu %.17g %.17g", wrong, alone, together);
  return text;
}

}  // namespace

TEST_CASE("sim groups: two groups crossing one link at once get half its rate each",
          "[sim][groups]") {
  const std::string result =
      ddl::sim::run_isolated({"two groups on trunk_4", simulate_shared_trunk}, 120);
  std::istringstream in(result);
  std::size_t wrong = 1;
  double alone = 0, together = 0;
  in >> wrong >> alone >> together;
  REQUIRE(in);
  CHECK(wrong == 0);
  // One flow each way through the trunk: S / B alone, 2 S / B beside the other group's two.
  const double bytes = static_cast<double>(kSendrecvCount * sizeof(float));
  CHECK(alone == Approx(bytes / kTrunk).epsilon(0.01));
  CHECK(together == Approx(2 * bytes / kTrunk).epsilon(0.01));
}

TEST_CASE("sim groups: a ring in a group of 2 and of 4 is exact and takes its closed form",
          "[sim][groups]") {
  const std::string result = ddl::sim::run_isolated({"groups on star_8", simulate_groups}, 120);
  std::istringstream in(result);
  Outcome out;
  in >> out.wrong >> out.split_time >> out.pair_time >> out.quad_time;
  REQUIRE(in);
  CHECK(out.wrong == 0);
  CHECK(out.split_time == 0);
  const double bytes = static_cast<double>(kCount * sizeof(float));
  CHECK(out.pair_time == Approx(ring_time(2, bytes)).epsilon(0.01));
  CHECK(out.quad_time == Approx(ring_time(4, bytes)).epsilon(0.01));
}
