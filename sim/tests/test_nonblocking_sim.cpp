// Non-blocking collectives on the simulator (sim/actor_streams.hpp): one rank's collectives in
// flight at once share the links they cross, against hand-computed timelines on trunk_4.xml
// (gpu0, gpu1 | a 1 GB/s split-duplex trunk | gpu2, gpu3; host links 100 GB/s; nothing else
// costs time). Each simulation runs in a child process of its own (one engine per process).
#include <catch2/catch.hpp>
#include <cstdio>
#include <memory>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/error.hpp"
#include "algorithms/nonblocking.hpp"
#include "algorithms/registry.hpp"
#include "child_process.hpp"
#include "sim/actor_streams.hpp"
#include "sim/isolated.hpp"
#include "sim/platform.hpp"
#include "sim/sim_communicator.hpp"

namespace {

constexpr double kTrunk = 1e9, kHostLink = 100e9;
constexpr std::size_t kCount = std::size_t{1} << 20;  // float32: 4 MiB, S below
constexpr std::size_t kSize = kCount * sizeof(float);
constexpr double kBytes = static_cast<double>(kSize);

// gpu0 and gpu2 each take part in two groups of the same two ranks, {0, 2} twice, and run a
// sendrecv (one flow each way across the trunk) in the first alone, then in both at once.
// "wrong alone first second": simulated seconds of each handle.
std::string simulate_two_on_one_link() {
  auto& engine = ddl::sim::start_engine("test_nonblocking_trunk");
  const ddl::sim::Platform platform =
      ddl::sim::load_platform(engine, ddl::test::fixture("trunk_4.xml"));
  const ddl::sim::SimWorld world{&platform, true};
  std::size_t wrong = 0;
  double alone = 0, first = 0, second = 0;
  const ddl::Algorithm& sendrecv = ddl::find_algorithm("sendrecv");
  for (int r = 0; r < 4; ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          ddl::sim::SimCommunicator comm(world, r);
          const int color = r % 2 == 0 ? 0 : -1;  // gpu1 and gpu3 stay out
          const std::unique_ptr<ddl::Communicator> g1 = comm.split(color, r);
          const std::unique_ptr<ddl::Communicator> g2 = comm.split(color, r);
          if (!g1) return;
          std::vector<float> a(kCount), b(kCount);
          for (std::vector<float>* buf : {&a, &b})
            ddl::fill_input(buf->data(), kCount, ddl::DType::float32, ddl::ReduceOp::sum,
                            ddl::Collective::sendrecv, g1->rank(), 2, 0);
          const double start = comm.now();
          sendrecv.run(*g1, {a.data(), kSize}, ddl::DType::float32, ddl::ReduceOp::sum, {});
          alone = std::max(alone, comm.now() - start);
          ddl::fill_input(a.data(), kCount, ddl::DType::float32, ddl::ReduceOp::sum,
                          ddl::Collective::sendrecv, g1->rank(), 2, 0);
          ddl::sim::ActorLauncher actors;
          ddl::NonBlocking nb(actors);
          ddl::CollectiveHandle h1 = nb.start(*g1, sendrecv, {a.data(), kSize}, ddl::DType::float32,
                                              ddl::ReduceOp::sum, {});
          ddl::CollectiveHandle h2 = nb.start(*g2, sendrecv, {b.data(), kSize}, ddl::DType::float32,
                                              ddl::ReduceOp::sum, {});
          h1.wait();
          h2.wait();
          first = std::max(first, h1.end_time() - h1.start_time());
          second = std::max(second, h2.end_time() - h2.start_time());
          for (const std::vector<float>* buf : {&a, &b})
            wrong += ddl::check_output(buf->data(), kCount, ddl::DType::float32, ddl::ReduceOp::sum,
                                       ddl::Collective::sendrecv, g1->rank(), 2, 0)
                         .wrong;
        });
  engine.run();
  char text[128];
  std::snprintf(text, sizeof text, "%zu %.17g %.17g %.17g", wrong, alone, first, second);
  return text;
}

// Every rank: a sendrecv of S across the trunk (group {r, r+2 mod 4}) and one of 100 S over the
// host links (group {0, 1} or {2, 3}) at once, timing-only. "cross local step": simulated
// seconds of each handle and of the step (both waited), max over ranks.
std::string simulate_trunk_beside_host_links() {
  auto& engine = ddl::sim::start_engine("test_nonblocking_mixed");
  const ddl::sim::Platform platform =
      ddl::sim::load_platform(engine, ddl::test::fixture("trunk_4.xml"));
  const ddl::sim::SimWorld world{&platform, false};
  double cross = 0, local = 0, step = 0;
  const ddl::Algorithm& sendrecv = ddl::find_algorithm("sendrecv");
  for (int r = 0; r < 4; ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          ddl::sim::SimCommunicator comm(world, r);
          const std::unique_ptr<ddl::Communicator> across = comm.split(r % 2, r);
          const std::unique_ptr<ddl::Communicator> beside = comm.split(r / 2, r);
          // Timing-only buffers: address ranges of no memory, told apart by the simulator.
          const ddl::Scratch small(comm, kCount * sizeof(float));
          const ddl::Scratch big(comm, 100 * kCount * sizeof(float));
          ddl::sim::ActorLauncher actors;
          ddl::NonBlocking nb(actors);
          const double start = comm.now();
          ddl::CollectiveHandle x = nb.start(*across, sendrecv, small.view(), ddl::DType::float32,
                                             ddl::ReduceOp::sum, {});
          ddl::CollectiveHandle y =
              nb.start(*beside, sendrecv, big.view(), ddl::DType::float32, ddl::ReduceOp::sum, {});
          x.wait();
          y.wait();
          step = std::max(step, comm.now() - start);
          cross = std::max(cross, x.end_time() - x.start_time());
          local = std::max(local, y.end_time() - y.start_time());
        });
  engine.run();
  char text[128];
  std::snprintf(text, sizeof text, "%.17g %.17g %.17g", cross, local, step);
  return text;
}

}  // namespace

TEST_CASE("sim non-blocking: one rank's two collectives across one link get half its rate each",
          "[sim][nonblocking]") {
  std::istringstream in(ddl::sim::run_isolated({"two on one link", simulate_two_on_one_link}, 120));
  std::size_t wrong = 1;
  double alone = 0, first = 0, second = 0;
  in >> wrong >> alone >> first >> second;
  REQUIRE(in);
  CHECK(wrong == 0);
  // One flow each way: S / B alone; two each way, started together: both end at 2 S / B.
  CHECK(alone == Approx(kBytes / kTrunk).epsilon(0.01));
  CHECK(first == Approx(2 * kBytes / kTrunk).epsilon(0.01));
  CHECK(second == Approx(2 * kBytes / kTrunk).epsilon(0.01));
}

TEST_CASE(
    "sim non-blocking: a collective on the host links ends beside one on the trunk, not "
    "after it",
    "[sim][nonblocking]") {
  std::istringstream in(
      ddl::sim::run_isolated({"trunk beside host links", simulate_trunk_beside_host_links}, 120));
  double cross = 0, local = 0, step = 0;
  in >> cross >> local >> step;
  REQUIRE(in);
  // Across: two flows each way share the trunk, 2 S / B. Beside: 100 S over a host link that
  // also carries one trunk flow of B / 2, so at 100 GB/s - 0.5 GB/s (max-min fairness). The step
  // is the longer of the two, 2 S / B; one after the other it would be 3 S / B.
  CHECK(cross == Approx(2 * kBytes / kTrunk).epsilon(0.01));
  CHECK(local == Approx(100 * kBytes / (kHostLink - kTrunk / 2)).epsilon(0.01));
  CHECK(step == Approx(2 * kBytes / kTrunk).epsilon(0.01));
}
