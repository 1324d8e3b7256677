// The collectives beyond allreduce, by hand: every rank's input and output written out for small
// rank counts (alltoall's blocks and its unsent remainder, sendrecv's shift, the rooted ones'
// root), the check pattern shown to catch a collective that moved nothing, and each cost
// function against its closed form on a uniform network. (Every algorithm's exactness over
// ranks x counts x dtypes x ops is in test_algorithms.cpp.)
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/collective_input.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/tree_steps.hpp"
#include "loopback/loopback_communicator.hpp"

using namespace ddl;

namespace {

// Runs `algo` on p ranks over float buffers of `count` elements, rank r's element i = 100 r + i
// (the root's only where `only_root`, -1 elsewhere), and returns every rank's output.
std::vector<std::vector<float>> run_floats(const char* algo, int p, std::size_t count, int root,
                                           bool only_root = false) {
  std::vector<std::vector<float>> out(static_cast<std::size_t>(p), std::vector<float>(count));
  Options opts;
  opts.root = root;
  run_ranks(p, [&](Communicator& comm) {
    std::vector<float>& buf = out[static_cast<std::size_t>(comm.rank())];
    for (std::size_t i = 0; i < count; ++i)
      buf[i] = only_root && comm.rank() != root ? -1.0f : static_cast<float>(100 * comm.rank()) + i;
    find_algorithm(algo).run(comm, {buf.data(), count * sizeof(float)}, DType::float32,
                             ReduceOp::sum, opts);
  });
  return out;
}

}  // namespace

TEST_CASE("alltoall: block j of rank r lands in block r of rank j and the remainder stays",
          "[loopback][collectives]") {
  for (const char* algo : {"alltoall_pairwise", "alltoall_linear", "alltoall_bruck"})
    for (int p : {1, 2, 3, 5, 8}) {
      // p - 1 elements more than 3 per rank: count / p = 3 each, p - 1 not sent.
      const std::size_t b = 3, count = b * static_cast<std::size_t>(p) + p - 1;
      const auto out = run_floats(algo, p, count, 0);
      for (int r = 0; r < p; ++r)
        for (std::size_t i = 0; i < count; ++i) {
          INFO(algo << " p=" << p << " rank " << r << " element " << i);
          const std::size_t j = i / b, k = i % b;
          const float expected = i >= b * static_cast<std::size_t>(p)
                                     ? static_cast<float>(100 * r) + i  // not sent: as it was
                                     : static_cast<float>(100 * j + r * b + k);
          REQUIRE(out[static_cast<std::size_t>(r)][i] == expected);
        }
    }
}

TEST_CASE("sendrecv: every rank ends with rank r-1's buffer", "[loopback][collectives]") {
  for (int p : {1, 2, 3, 4}) {
    const auto out = run_floats("sendrecv", p, 5, 0);
    for (int r = 0; r < p; ++r)
      for (std::size_t i = 0; i < 5; ++i)
        REQUIRE(out[static_cast<std::size_t>(r)][i] ==
                static_cast<float>(100 * ((r + p - 1) % p)) + i);
  }
}

TEST_CASE("reduce, gather and scatter define the root's or each rank's bytes",
          "[loopback][collectives]") {
  const int p = 3, root = 1;
  const std::size_t count = 7;  // blocks of 3, 2, 2 elements
  for (const char* algo : {"reduce_chain", "reduce_binomial"}) {
    const auto out = run_floats(algo, p, count, root);
    for (std::size_t i = 0; i < count; ++i)
      REQUIRE(out[root][i] == static_cast<float>(0 + 100 + 200 + 3 * i));
  }
  const auto gathered = run_floats("gather", p, count, root);
  // Block r comes from rank r: elements 0-2 from rank 0, 3-4 from rank 1, 5-6 from rank 2.
  const std::vector<float> expected = {0, 1, 2, 103, 104, 205, 206};
  REQUIRE(gathered[root] == expected);
  const auto scattered = run_floats("scatter", p, count, root, true);
  REQUIRE(scattered[0][0] == 100);  // rank 0's block: root's elements 0-2
  REQUIRE(scattered[0][2] == 102);
  REQUIRE(scattered[2][5] == 105);  // rank 2's block: root's elements 5-6
  REQUIRE(scattered[2][6] == 106);
}

TEST_CASE("the check pattern catches a collective that moved nothing", "[collectives]") {
  const int p = 4;
  const std::size_t count = 13;
  for (Collective c : {Collective::alltoall, Collective::sendrecv, Collective::gather,
                       Collective::scatter, Collective::reduce}) {
    INFO(to_string(c));
    // Rank 1: not the root of the rooted ones (root 0) unless checked only there.
    const int rank = c == Collective::reduce || c == Collective::gather ? 0 : 1;
    std::vector<float> buf(count);
    fill_input(buf.data(), count, DType::float32, ReduceOp::sum, c, rank, p, 0);
    CHECK(check_output(buf.data(), count, DType::float32, ReduceOp::sum, c, rank, p, 0).wrong > 0);
  }
}

TEST_CASE("the collectives' costs are their closed forms on a uniform network",
          "[collectives][cost]") {
  const double a = 1e-6, b = 1e-9, g = 3e-10;
  CostParams params;
  params.per_dim = {{a, b}};
  params.gamma = g;
  const int p = 8;
  const std::size_t bytes = 8 << 20, block = bytes / 8;
  Options opts;
  auto cost = [&](const char* algo) {
    return find_algorithm(algo).cost(CostQuery{Dims::flat(p), bytes, opts, params});
  };
  const double copy = 2.0 / 3.0 * g * static_cast<double>(bytes);
  CHECK(cost("alltoall_pairwise") == Approx(7 * (a + block * b) + copy));
  // Bruck: 3 steps of p/2 blocks, copies of the two rotations and of packing each step's.
  CHECK(cost("alltoall_bruck") == Approx(3 * (a + 4 * block * b) + copy * (2 + 2 * 3 * 4.0 / 8)));
  CHECK(cost("sendrecv") == Approx(a + bytes * b + copy));
  // Two-level on 4 x 2: 3 steps in the node, each 2 blocks to one peer (one latency), 1 step on
  // the rail of 4 blocks as one message, and a copy before each phase.
  {
    CostParams two = params;
    two.per_dim = {{a, b / 4}, {4 * a, b}};
    Options grid;
    grid.dims = Dims({4, 2});
    const double hier =
        find_algorithm("alltoall_hier").cost(CostQuery{Dims({4, 2}), bytes, grid, two});
    CHECK(hier == Approx(3 * (a + 2 * block * b / 4) + (4 * a + 4 * block * b) + 2 * copy));
  }
  // hier's reduce-scatter and allgather on 4 x 2, c chain chunks in the node: the chain (g - 2 +
  // c steps of S/c), the leaders' ring of one step of S/2, and the leader's scatter (gather) of
  // its 3 members' blocks at once through its link.
  {
    CostParams two = params;
    two.per_dim = {{a, b / 4}, {4 * a, b}};
    Options grid;
    grid.dims = Dims({4, 2});
    const double c = kDefaultChainChunks, chunk = bytes / c, half = bytes / 2.0;
    const double rs =
        find_algorithm("reduce_scatter_hier").cost(CostQuery{Dims({4, 2}), bytes, grid, two});
    CHECK(rs == Approx((2 + c) * (a + chunk * (b / 4 + g)) + (4 * a + half * (b + g)) +
                       (a + 3 * block * b / 4)));
    const double ag =
        find_algorithm("allgather_hier").cost(CostQuery{Dims({4, 2}), bytes, grid, two});
    CHECK(ag ==
          Approx((a + 3 * block * b / 4) + (4 * a + half * b) + (2 + c) * (a + chunk * b / 4)));
  }
  // The root receives 7 blocks at once through its one link.
  CHECK(cost("gather") == Approx(a + 7 * block * b));
  CHECK(cost("reduce_binomial") == Approx(3 * (a + bytes * b + bytes * g)));
}

TEST_CASE("collective_input: the bytes each collective reads on each rank", "[collectives]") {
  // 10 floats on 4 ranks: blocks of 3, 3, 2, 2 elements.
  const auto in = [](Collective c, int rank) {
    return collective_input(c, 10, DType::float32, rank, 4, 1);
  };
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::alltoall,
                       Collective::reduce, Collective::sendrecv})
    CHECK(in(c, 3) == Block{0, 40});
  CHECK(in(Collective::allgather, 1) == Block{12, 12});
  CHECK(in(Collective::gather, 3) == Block{32, 8});
  CHECK(in(Collective::broadcast, 1) == Block{0, 40});
  CHECK(in(Collective::broadcast, 0) == Block{0, 0});
  CHECK(in(Collective::scatter, 2) == Block{0, 0});
}

TEST_CASE("out of place: every algorithm's output exact from a poisoned start, its input unwritten",
          "[loopback][collectives]") {
  for (const Algorithm& a : algorithms()) {
    if (a.needs_in_switch || a.needs_native_library) continue;
    for (int p : {1, 3, 4}) {
      const std::size_t count = 7 * static_cast<std::size_t>(p) + 2, bytes = count * sizeof(float);
      Options opts;
      opts.root = p - 1;
      std::vector<std::vector<float>> input(static_cast<std::size_t>(p), std::vector<float>(count));
      std::vector<std::vector<float>> output = input;
      run_ranks(p, [&](Communicator& comm) {
        const auto r = static_cast<std::size_t>(comm.rank());
        fill_input(input[r].data(), count, DType::float32, ReduceOp::sum, a.collective, comm.rank(),
                   p, opts.root);
        fill_poison(output[r].data(), count, DType::float32);
        run_out_of_place_call(comm, a, ConstView{input[r].data(), bytes},
                              MutView{output[r].data(), bytes}, DType::float32, ReduceOp::sum,
                              opts);
      });
      std::vector<float> fresh(count);
      for (int r = 0; r < p; ++r) {
        INFO(a.name << " p=" << p << " rank " << r);
        const auto i = static_cast<std::size_t>(r);
        CHECK(check_output(output[i].data(), count, DType::float32, ReduceOp::sum, a.collective, r,
                           p, opts.root)
                  .wrong == 0);
        fill_input(fresh.data(), count, DType::float32, ReduceOp::sum, a.collective, r, p,
                   opts.root);
        CHECK(input[i] == fresh);
      }
    }
  }
}
