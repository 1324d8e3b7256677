// all-to-all-v on the simulator (algorithms/alltoallv.hpp) on star_8.xml (8 hosts, each a
// 10 GB/s, 1 us split-duplex link to one router; memory 100 GB/s): exact for every dtype in
// payload mode on layouts with empty blocks, gaps and reversed receive order; with equal blocks
// the simulated time is the closed form (pairwise: p-1 steps of one flow each way per link;
// linear: p-1 flows sharing each link at once; hier on 2 x 4: the counts, one step in the
// "node", three on the "rails") and the cost function's. One simulation per
// child process (one engine per process).
#include <catch2/catch.hpp>
#include <cstdio>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <vector>

#include "algorithms/alltoallv.hpp"
#include "algorithms/tests/alltoallv_pattern.hpp"
#include "child_process.hpp"
#include "sim/isolated.hpp"
#include "sim/platform.hpp"
#include "sim/sim_communicator.hpp"

namespace {

constexpr double kAlpha = 2e-6, kBeta = 1e-10, kGamma = 3.0 / 100e9;
constexpr int kRanks = 8;
constexpr std::size_t kBlock = std::size_t{1} << 18;  // float32 elements per peer: 1 MiB

// Every rank sends every peer kBlock elements, packed in peer order.
ddl::AlltoallvLayout equal_layout() {
  ddl::AlltoallvLayout l;
  for (std::size_t j = 0; j < kRanks; ++j)
    l.counts.push_back(kBlock), l.displs.push_back(j * kBlock);
  return l;
}

// "wrong pairwise_seconds linear_seconds": the payload runs' wrong elements over every dtype
// and both algorithms, then the simulated seconds of each algorithm on equal blocks.
std::string simulate_alltoallv() {
  auto& engine = ddl::sim::start_engine("test_alltoallv_sim");
  const ddl::sim::Platform platform =
      ddl::sim::load_platform(engine, ddl::test::fixture("star_8.xml"));
  const ddl::sim::SimWorld world{&platform, true};
  std::size_t wrong = 0;
  double seconds[3] = {0, 0, 0};
  const ddl::AlltoallvAlgorithm algos[3] = {ddl::AlltoallvAlgorithm::pairwise,
                                            ddl::AlltoallvAlgorithm::linear,
                                            ddl::AlltoallvAlgorithm::hier};
  ddl::Options opts;
  opts.dims = ddl::Dims({2, 4});  // hier: 2 GPUs a node, 4 nodes
  for (int r = 0; r < kRanks; ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          ddl::sim::SimCommunicator comm(world, r);
          for (ddl::AlltoallvAlgorithm a : algos)
            for (ddl::DType type : ddl::all_dtypes()) {
              const ddl::test::RankLayout l = ddl::test::alltoallv_layout(kRanks, r, 1001, 5);
              const std::vector<std::byte> in = ddl::test::alltoallv_input(l, r, type);
              std::vector<std::byte> out = ddl::test::alltoallv_output(l, type);
              ddl::alltoallv(comm, ddl::ConstView{in.data(), in.size()}, l.send,
                             ddl::MutView{out.data(), out.size()}, l.recv, type, opts, a);
              if (!ddl::test::alltoallv_wrong(out, l, r, type).empty()) ++wrong;
            }
          const ddl::AlltoallvLayout l = equal_layout();
          std::vector<float> in(kRanks * kBlock), out(kRanks * kBlock);
          for (int k = 0; k < 3; ++k) {
            comm.split(0, r);  // a barrier (split costs no time)
            const double start = comm.now();
            ddl::alltoallv(comm, ddl::ConstView{in.data(), in.size() * sizeof(float)}, l,
                           ddl::MutView{out.data(), out.size() * sizeof(float)}, l,
                           ddl::DType::float32, opts, algos[k]);
            seconds[k] = std::max(seconds[k], comm.now() - start);
          }
        });
  engine.run();
  char text[128];
  std::snprintf(text, sizeof text, "%zu %.17g %.17g %.17g", wrong, seconds[0], seconds[1],
                seconds[2]);
  return text;
}

}  // namespace

TEST_CASE("sim alltoallv: exact for every dtype and the closed form's time", "[sim][alltoallv]") {
  const std::string result =
      ddl::sim::run_isolated({"alltoallv on star_8", simulate_alltoallv}, 120);
  std::istringstream in(result);
  std::size_t wrong = 1;
  double pairwise = 0, linear = 0, hier = 0;
  in >> wrong >> pairwise >> linear >> hier;
  REQUIRE(in);
  CHECK(wrong == 0);
  const double block = static_cast<double>(kBlock * sizeof(float)), copy = 2.0 / 3 * kGamma * block;
  CHECK(pairwise == Approx((kRanks - 1) * (kAlpha + block * kBeta) + copy).epsilon(0.01));
  CHECK(linear == Approx(kAlpha + (kRanks - 1) * block * kBeta + copy).epsilon(0.01));
  // The cost function prices the same schedules alike.
  ddl::CostParams params;
  params.per_dim = {{kAlpha, kBeta}};
  params.gamma = kGamma;
  const ddl::Options opts;
  const ddl::CostQuery q{ddl::Dims::flat(kRanks), 0, opts, params};
  const ddl::AlltoallvLayouts equal = [](int) { return std::pair{equal_layout(), equal_layout()}; };
  CHECK(ddl::alltoallv_cost(q, ddl::AlltoallvAlgorithm::pairwise, 4, equal) ==
        Approx(pairwise).epsilon(0.01));
  CHECK(ddl::alltoallv_cost(q, ddl::AlltoallvAlgorithm::linear, 4, equal) ==
        Approx(linear).epsilon(0.01));
  // hier on 2 x 4: the counts (4 of 8 bytes to the other GPU), one node step of 4 blocks to one
  // peer, 3 rail steps of 2 blocks each, and the staging copies (4 blocks in, 2 out).
  ddl::Options grid;
  grid.dims = ddl::Dims({2, 4});
  const ddl::CostQuery hq{ddl::Dims::flat(kRanks), 0, grid, params};
  const double counts = kAlpha + 32 * kBeta;
  CHECK(hier ==
        Approx(counts + (kAlpha + 4 * block * kBeta) + 3 * (kAlpha + 2 * block * kBeta) + 6 * copy)
            .epsilon(0.01));
  CHECK(ddl::alltoallv_cost(hq, ddl::AlltoallvAlgorithm::hier, 4, equal) ==
        Approx(hier).epsilon(0.01));
}
