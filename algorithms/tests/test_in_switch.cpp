// The pure parts of in-switch reduction (switch_chunks.hpp, in_switch_steps.hpp), the costs of
// nvls / sharp / nvls_sharp, and their refusal on a backend without switches that reduce
// (loopback, as MPI and CUDA). The switch itself is tested on the simulator
// (sim/tests/test_in_switch.cpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "algorithms/cost_model.hpp"
#include "algorithms/in_switch_steps.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/switch_chunks.hpp"
#include "loopback/loopback_communicator.hpp"

using namespace ddl;

TEST_CASE("switch chunks: an allreduce cuts the buffer, the others each member's block",
          "[in_switch]") {
  const auto ar = switch_chunks(SwitchCollective::allreduce, 10, 4, 3, 16);
  REQUIRE(ar.size() == 3);  // 40 bytes in chunks of 16
  CHECK(ar[0].range == Block{0, 16});
  CHECK(ar[2].range == Block{32, 8});
  CHECK(ar[2].owner == -1);
  // 10 elements over 3 members: blocks of 4, 3, 3 elements = 16, 12, 12 bytes.
  const auto rs = switch_chunks(SwitchCollective::reduce_scatter, 10, 4, 3, 8);
  REQUIRE(rs.size() == 6);
  CHECK(rs[0].range == Block{0, 8});
  CHECK(rs[1].range == Block{8, 8});
  CHECK(rs[2].range == Block{16, 8});
  CHECK(rs[3].range == Block{24, 4});
  CHECK(rs[3].owner == 1);
  CHECK(rs[5].range == Block{36, 4});
  CHECK(rs[5].owner == 2);
  // A chunk below one element takes one; 0 means no limit; nothing to cut, no chunk.
  CHECK(switch_chunks(SwitchCollective::allreduce, 3, 8, 2, 5).size() == 3);
  CHECK(switch_chunks(SwitchCollective::allreduce, 1000, 4, 2, 0).size() == 1);
  CHECK(switch_chunks(SwitchCollective::allgather, 0, 4, 2, 8).empty());
  // Fewer elements than members: the empty blocks have no chunk.
  CHECK(switch_chunks(SwitchCollective::allgather, 1, 4, 4, 8).size() == 1);
}

TEST_CASE("who moves a chunk: every member, or its block's owner", "[in_switch]") {
  const SwitchChunk c{{0, 8}, 1};
  CHECK(sends_up(SwitchCollective::reduce_scatter, c, 0));
  CHECK_FALSE(receives_down(SwitchCollective::reduce_scatter, c, 0));
  CHECK(receives_down(SwitchCollective::reduce_scatter, c, 1));
  CHECK_FALSE(sends_up(SwitchCollective::allgather, c, 0));
  CHECK(sends_up(SwitchCollective::allgather, c, 1));
  CHECK(receives_down(SwitchCollective::allgather, c, 0));
  CHECK(reduces(SwitchCollective::allreduce));
  CHECK_FALSE(reduces(SwitchCollective::allgather));
}

TEST_CASE("the switch's timeline: up and down overlap, the slower of links and switch paces it",
          "[in_switch]") {
  // 3 chunks of 1 s each way, reduce 0.5 s: chunk 0 up at 1, down 1.5..2.5; chunk 1 up at 2,
  // down 2.5..3.5; chunk 2 up at 3, down 3.5..4.5.
  CHECK(switch_pipeline_time({1, 1, 1}, {0.5, 0.5, 0.5}, {1, 1, 1}) == 4.5);
  // Reduce 2 s: the switch sets the pace, 2 T + n E.
  CHECK(switch_pipeline_time({1, 1, 1}, {2, 2, 2}, {1, 1, 1}) == 8);
  CHECK(switch_pipeline_time({}, {}, {}) == 0);
  SwitchCost cost{1e-6, 1e-10, 1.0 / 80e9, 1048576, 4};
  const double t = 1e-6 + 1048576 * 1e-10, e = 4 * 1048576 / 80e9;
  CHECK(switch_collective_time(cost, SwitchCollective::allreduce, 16 * 1048576) ==
        Approx(17 * t + e).epsilon(1e-12));
  CHECK(switch_collective_time(cost, SwitchCollective::allgather, 16 * 1048576) ==
        Approx(17 * t).epsilon(1e-12));
}

TEST_CASE("nodes and rails: consecutive ranks, one local index per rail", "[in_switch]") {
  const NodeRail nr = node_and_rail(12, 7, 4, "nvls");
  CHECK(nr.node.ranks == std::vector<int>{4, 5, 6, 7});
  CHECK(nr.node.me == 3);
  CHECK(nr.rail.ranks == std::vector<int>{3, 7, 11});
  CHECK(nr.rail.me == 1);
  CHECK_THROWS_WITH(node_and_rail(10, 0, 4, "nvls"),
                    Catch::Contains("nvls: 10 ranks are no whole number of nodes of 4"));
}

TEST_CASE("in-switch costs are +inf without the switches, and auto never picks them",
          "[in_switch]") {
  const Dims dims = Dims::parse("4x2");
  CostParams c = uniform_costs(dims);
  for (const char* name : {"nvls", "sharp", "nvls_sharp"})
    CHECK(std::isinf(model_time(name, dims, c, 1 << 20, Options{})));
  CHECK(best_allreduce(dims, c, 1 << 20, Options{}) != "nvls");
  // A node switch only: nvls is priced (and cheap), the others still need the network's.
  c.in_switch[kNodeSwitch] = SwitchCost{1e-7, 1e-12, 1e-13, 1 << 20, 4};
  CHECK(std::isfinite(model_time("nvls", dims, c, 1 << 20, Options{})));
  CHECK(std::isinf(model_time("sharp", dims, c, 1 << 20, Options{})));
  CHECK(std::isinf(model_time("nvls_sharp", dims, c, 1 << 20, Options{})));
  CHECK(best_allreduce(dims, c, 64 << 20, Options{}) == "nvls");
}

TEST_CASE("in-switch algorithms refuse a backend without switches that reduce, by name",
          "[in_switch][loopback]") {
  for (const char* name : {"nvls", "sharp", "nvls_sharp"}) {
    std::vector<std::string> errors(2);
    run_ranks(2, [&](Communicator& comm) {
      std::vector<float> buf(8, 1.0f);
      try {
        find_algorithm(name).run(comm, {buf.data(), buf.size() * sizeof(float)}, DType::float32,
                                 ReduceOp::sum, Options{});
      } catch (const InvalidArgument& e) {
        errors[static_cast<std::size_t>(comm.rank())] = e.what();
      }
    });
    for (const std::string& e : errors) {
      CHECK_THAT(e, Catch::StartsWith(std::string(name) + ": this backend has no in-switch"));
    }
  }
}
