// all-to-all-v (algorithms/alltoallv.hpp) on the loopback backend: exact over ranks 1..16, both
// algorithms, every dtype, layouts with empty blocks, gaps and receive ranges in reverse peer
// order; each malformed layout refused by name; counts that do not match peer to peer refused on
// every rank alike; the schedules' shape and the cost's closed form.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/alltoallv.hpp"
#include "algorithms/alltoallv_hier.hpp"
#include "algorithms/tests/alltoallv_pattern.hpp"
#include "loopback/loopback_communicator.hpp"

using namespace ddl;

namespace {

// Runs alltoallv on p ranks and returns, per rank, its first wrong output element ("" when
// exact: every received block holds its sender's values, every gap its poison).
std::vector<std::string> run_alltoallv(AlltoallvAlgorithm a, int p, std::size_t most, int seed,
                                       DType type, const Options& opts = {},
                                       bool counts_known = false) {
  EverySendCounts every;
  for (int q = 0; q < p; ++q) every.push_back(test::alltoallv_layout(p, q, most, seed).send.counts);
  std::vector<std::string> wrong(static_cast<std::size_t>(p));
  run_ranks(p, [&](Communicator& comm) {
    const int r = comm.rank();
    const test::RankLayout l = test::alltoallv_layout(p, r, most, seed);
    const std::vector<std::byte> in = test::alltoallv_input(l, r, type);
    std::vector<std::byte> out = test::alltoallv_output(l, type);
    alltoallv(comm, ConstView{in.data(), in.size()}, l.send, MutView{out.data(), out.size()},
              l.recv, type, opts, a, counts_known ? &every : nullptr);
    wrong[static_cast<std::size_t>(r)] = test::alltoallv_wrong(out, l, r, type);
  });
  return wrong;
}

}  // namespace

TEST_CASE("alltoallv: every rank's blocks land where their receivers say, for every dtype",
          "[loopback][alltoallv]") {
  for (AlltoallvAlgorithm a : {AlltoallvAlgorithm::pairwise, AlltoallvAlgorithm::linear})
    for (int p = 1; p <= 16; ++p)
      for (DType type : all_dtypes())
        for (std::size_t most : {std::size_t{0}, std::size_t{3}, std::size_t{1001}}) {
          INFO(to_string(a) << " p=" << p << " " << to_string(type) << " most " << most);
          for (const std::string& w : run_alltoallv(a, p, most, p + static_cast<int>(most), type))
            REQUIRE(w.empty());
        }
}

TEST_CASE("alltoallv_hier: exact on every grid and dtype, the counts exchanged or given",
          "[loopback][alltoallv]") {
  for (int p : {1, 2, 3, 4, 6, 8, 12, 16})
    for (const Dims& dims : factorizations(p, 3))
      for (std::size_t most : {std::size_t{0}, std::size_t{3}, std::size_t{1001}})
        for (bool known : {false, true}) {
          Options opts;
          opts.dims = dims;
          opts.segment_bytes = most == 3 ? 4 : 0;  // several segments per message too
          INFO("p=" << p << " dims " << dims.to_string() << " most " << most << " known " << known);
          for (DType type : {DType::float32, DType::bfloat16, DType::int64})
            for (const std::string& w :
                 run_alltoallv(AlltoallvAlgorithm::hier, p, most, p + static_cast<int>(most), type,
                               opts, known))
              REQUIRE(w.empty());
        }
}

TEST_CASE("alltoallv_hier: one message per rail peer's blocks, the counts first", "[alltoallv]") {
  // 2 x 2 (g = 2 GPUs per node, 2 nodes), rank 1 = (1, 0): every block of 3 elements of 4 bytes.
  const AlltoallvLayout send{{3, 3, 3, 3}, {0, 3, 6, 9}}, recv{{3, 3, 3, 3}, {0, 3, 6, 9}};
  const std::vector<std::vector<std::size_t>> from_node{{3, 3}, {3, 3}};
  const AlltoallvHierPlan plan = alltoallv_hier_plan(2, 4, 1, send, recv, from_node, 4);
  // Staging [x][m]: member 0's blocks for (1, 0) and (1, 1), then its own.
  CHECK(plan.staging_bytes == 48);
  CHECK(plan.stage ==
        std::vector<std::pair<Block, Block>>{{{12, 12}, {24, 12}}, {{36, 12}, {36, 12}}});
  REQUIRE(plan.phase1.size() == 1);  // to and from rank 0, a message per node
  CHECK(plan.phase1[0].sends == std::vector<Transfer>{{0, 0, 12}, {0, 24, 12}});
  CHECK(plan.phase1[0].recvs == std::vector<Transfer>{{0, 0, 12}, {0, 12, 12}});
  REQUIRE(plan.phase2.size() == 1);  // to and from rank 3 on the rail: the staged blocks for it
  CHECK(plan.phase2[0].sends == std::vector<Transfer>{{3, 12, 12}, {3, 36, 12}});
  CHECK(plan.phase2[0].recvs == std::vector<Transfer>{{3, 24, 12}, {3, 36, 12}});
  CHECK(plan.unstage ==
        std::vector<std::pair<Block, Block>>{{{0, 12}, {0, 12}}, {{24, 12}, {12, 12}}});
}

TEST_CASE("alltoallv: a malformed layout is refused by name", "[alltoallv]") {
  const AlltoallvLayout two{{2, 3}, {0, 2}};
  auto refused = [&](const AlltoallvLayout& send, std::size_t in, const AlltoallvLayout& recv,
                     std::size_t out) {
    try {
      check_alltoallv_layout(2, 0, send, in, recv, out);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused(two, 5, two, 5) == "accepted");
  CHECK(refused(AlltoallvLayout{{2}, {0}}, 5, two, 5) ==
        "alltoallv: the input layout has 1 counts and 1 displacements; the group has 2 ranks, "
        "one of each per rank");
  CHECK(refused(two, 4, two, 5) ==
        "alltoallv: the input range for rank 1 (elements 2 to 5) ends past the input buffer of "
        "4 elements");
  CHECK(refused(two, 5, AlltoallvLayout{{2, 3}, {0, 1}}, 5) ==
        "alltoallv: the output ranges for rank 0 (elements 0 to 2) and rank 1 (elements 1 to 4) "
        "overlap");
  CHECK(refused(two, 5, AlltoallvLayout{{1, 3}, {0, 2}}, 5) ==
        "alltoallv: rank 0 sends itself 2 elements and receives 1 from itself");
  // An empty range overlaps nothing and ends nowhere, wherever it points.
  CHECK(refused(two, 5, AlltoallvLayout{{2, 0}, {0, 1}}, 5) == "accepted");
  CHECK(refused(two, 5, AlltoallvLayout{{2, 0}, {0, 99}}, 5) == "accepted");
  CHECK_THROWS_WITH(parse_alltoallv_algorithm("alltoallv_bruck"),
                    "unknown all-to-all-v algorithm 'alltoallv_bruck' (known: alltoallv_pairwise, "
                    "alltoallv_linear, alltoallv_hier)");
  CHECK(parse_alltoallv_algorithm("alltoallv_linear") == AlltoallvAlgorithm::linear);
}

TEST_CASE("alltoallv: input and output must be separate buffers", "[loopback][alltoallv]") {
  std::string message;
  run_ranks(1, [&](Communicator& comm) {
    std::vector<float> buf(4);
    const AlltoallvLayout l{{2}, {0}};
    try {
      alltoallv(comm, ConstView{buf.data(), 8}, l, MutView{buf.data() + 1, 8}, l, DType::float32,
                Options{}, AlltoallvAlgorithm::pairwise);
    } catch (const InvalidArgument& e) {
      message = e.what();
    }
  });
  CHECK(message ==
        "alltoallv: the input and the output overlap (all-to-all-v reads one buffer and writes "
        "another)");
}

TEST_CASE("alltoallv: counts that do not match peer to peer are refused on every rank alike",
          "[loopback][alltoallv]") {
  for (bool mismatch : {false, true}) {
    std::vector<std::string> said(3);
    run_ranks(3, [&](Communicator& comm) {
      const int r = comm.rank();
      std::vector<std::size_t> send{1, 2, 3}, recv{1, 2, 3};
      for (std::size_t j = 0; j < 3; ++j) send[j] += 10 * static_cast<std::size_t>(r);
      for (std::size_t i = 0; i < 3; ++i) recv[i] = 10 * i + static_cast<std::size_t>(r) + 1;
      // Rank 2 sends rank 0 five elements where rank 0 expects 21; rank 1 too many to rank 2.
      if (mismatch && r == 2) send[0] = 5;
      if (mismatch && r == 1) send[2] = 99;
      try {
        agree_on_alltoallv_counts(comm, send, recv, Options{});
        said[static_cast<std::size_t>(r)] = "agreed";
      } catch (const RanksDisagree& e) {
        said[static_cast<std::size_t>(r)] = e.what();
      }
    });
    for (const std::string& s : said)
      CHECK(s == (mismatch ? "ranks disagree on the all-to-all-v counts: rank 1 sends 99 "
                             "elements to rank 2, which receives 13"
                           : "agreed"));
  }
}

TEST_CASE("alltoallv: pairwise is p-1 steps of one exchange, linear one step of all",
          "[alltoallv]") {
  const AlltoallvLayout send{{1, 2, 0, 4}, {0, 1, 3, 3}}, recv{{5, 6, 7, 8}, {26, 20, 13, 5}};
  const Schedule pairwise = alltoallv_steps(AlltoallvAlgorithm::pairwise, 4, 1, send, recv, 4);
  REQUIRE(pairwise.size() == 3);
  // Step k: to rank 1 + k, from rank 1 - k; byte offsets and lengths, a block of 0 kept.
  CHECK(pairwise[0].sends == std::vector<Transfer>{{2, 12, 0}});
  CHECK(pairwise[0].recvs == std::vector<Transfer>{{0, 104, 20}});
  CHECK(pairwise[1].sends == std::vector<Transfer>{{3, 12, 16}});
  CHECK(pairwise[1].recvs == std::vector<Transfer>{{3, 20, 32}});
  CHECK(pairwise[2].sends == std::vector<Transfer>{{0, 0, 4}});
  CHECK(pairwise[2].recvs == std::vector<Transfer>{{2, 52, 28}});
  const Schedule linear = alltoallv_steps(AlltoallvAlgorithm::linear, 4, 1, send, recv, 4);
  REQUIRE(linear.size() == 1);
  CHECK(linear[0].sends.size() == 3);
  CHECK(linear[0].recvs.size() == 3);
  CHECK(alltoallv_steps(AlltoallvAlgorithm::linear, 1, 0, {{1}, {0}}, {{1}, {0}}, 4).empty());
}

TEST_CASE("alltoallv: equal blocks cost what alltoall's schedule does, plus one block's copy",
          "[alltoallv][cost]") {
  const double a = 1e-6, b = 1e-9, g = 3e-10;
  CostParams params;
  params.per_dim = {{a, b}};
  params.gamma = g;
  const int p = 8;
  const std::size_t block = 1 << 20;  // elements of 4 bytes
  Options opts;
  const AlltoallvLayouts equal = [&](int) {
    AlltoallvLayout l{std::vector<std::size_t>(p, block), {}};
    for (std::size_t j = 0; j < p; ++j) l.displs.push_back(j * block);
    return std::pair{l, l};
  };
  const CostQuery q{Dims::flat(p), 0, opts, params};
  const double bytes = 4.0 * block, copy = 2.0 / 3.0 * g * bytes;
  CHECK(alltoallv_cost(q, AlltoallvAlgorithm::pairwise, 4, equal) ==
        Approx(7 * (a + bytes * b) + copy));
  // Rank 0 sends rank 1 twice as much: the step where 0 sends to 1 (and so 1 receives) is the
  // longest of its step for every rank, as lockstep steps are priced.
  const AlltoallvLayouts skewed = [&](int r) {
    auto [send, recv] = equal(r);
    if (r == 0)
      send.counts[1] *= 2, send.displs = {0,         block,     3 * block, 4 * block,
                                          5 * block, 6 * block, 7 * block, 8 * block};
    if (r == 1)
      recv.counts[0] *= 2, recv.displs = {0,         2 * block, 3 * block, 4 * block,
                                          5 * block, 6 * block, 7 * block, 8 * block};
    return std::pair{send, recv};
  };
  CHECK(alltoallv_cost(q, AlltoallvAlgorithm::pairwise, 4, skewed) ==
        Approx(7 * (a + bytes * b) + bytes * b + copy));
}
