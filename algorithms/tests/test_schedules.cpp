// Pure schedule functions, checked without any communicator: blocks cover the buffer without
// overlap, ring peers are neighbours, and ddl's slices walk the grid as specified.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule.hpp"

using namespace ddl;

TEST_CASE("partition covers the range in element-aligned blocks", "[schedule]") {
  for (std::size_t count : {0u, 1u, 7u, 8u, 9u, 1000003u})
    for (std::size_t parts : {1u, 2u, 3u, 8u, 16u}) {
      const auto blocks = partition(count, parts, 4);
      REQUIRE(blocks.size() == parts);
      std::size_t offset = 0, largest = 0, smallest = SIZE_MAX;
      for (const Block& b : blocks) {
        CHECK(b.offset == offset);
        CHECK(b.bytes % 4 == 0);
        offset += b.bytes;
        largest = std::max(largest, b.bytes);
        smallest = std::min(smallest, b.bytes);
      }
      CHECK(offset == count * 4);
      CHECK(largest - smallest <= 4);
    }
  const auto sub = partition(Block{40, 12}, 2, 4);
  CHECK(sub == std::vector<Block>{{40, 8}, {48, 4}});
  CHECK_THROWS(partition(Block{0, 6}, 2, 4));
}

TEST_CASE("ring reduce-scatter leaves member i with block i", "[schedule]") {
  for (int g = 1; g <= 9; ++g) {
    const auto blocks = partition(Block{0, 4u * 100}, static_cast<std::size_t>(g), 4);
    for (int me = 0; me < g; ++me) {
      Group group;
      for (int r = 0; r < g; ++r) group.ranks.push_back(10 + r);  // world ranks != indices
      group.me = me;
      const Schedule rs = ring_reduce_scatter(group, Block{0, 400}, 4, 2);
      REQUIRE(rs.size() == static_cast<std::size_t>(g - 1));
      std::set<std::size_t> reduced;
      for (const Step& s : rs) {
        REQUIRE(s.sends.size() == 1);
        REQUIRE(s.recvs.size() == 1);
        CHECK(s.reduce);
        CHECK(s.dimension == 2);
        CHECK(s.sends[0].peer == 10 + (me + 1) % g);
        CHECK(s.recvs[0].peer == 10 + (me + g - 1) % g);
        CHECK(s.sends[0].offset != s.recvs[0].offset);
        reduced.insert(s.recvs[0].offset);
      }
      // The last block received and reduced is member me's own.
      if (g > 1) CHECK(rs.back().recvs[0].offset == blocks[static_cast<std::size_t>(me)].offset);
      CHECK(reduced.size() == static_cast<std::size_t>(g - 1));
      // Allgather: starts by sending its own block and receives every other block once.
      const Schedule ag = ring_allgather(group, Block{0, 400}, 4, 2);
      std::set<std::size_t> received;
      for (const Step& s : ag) received.insert(s.recvs[0].offset);
      if (g > 1) CHECK(ag.front().sends[0].offset == blocks[static_cast<std::size_t>(me)].offset);
      CHECK(received.size() == static_cast<std::size_t>(g - 1));
      CHECK(received.count(blocks[static_cast<std::size_t>(me)].offset) == 0);
    }
  }
}

TEST_CASE("ddl slices walk rotated dimension orders over their own slice", "[schedule][ddl]") {
  CHECK(ddl_dimension_order(0, 3) == std::vector<int>{0, 1, 2});
  CHECK(ddl_dimension_order(1, 3) == std::vector<int>{1, 2, 0});
  CHECK(ddl_dimension_order(4, 3) == std::vector<int>{1, 2, 0});
  const Dims dims = Dims::parse("3x5x7");
  Options opts;
  opts.rings = 3;
  const std::size_t count = 1000;
  const auto slices = partition(count, 3, 4);
  for (int rank : {0, 17, 104}) {
    const auto schedules = ddl_schedules(dims, rank, count, 4, opts);
    REQUIRE(schedules.size() == 3);
    for (std::size_t j = 0; j < 3; ++j) {
      const Schedule& s = schedules[j];
      CHECK(s.size() == 2u * (2 + 4 + 6));  // 2 Σ(d_i - 1) steps, whatever the order
      // The first step runs along dimension j, and every peer differs from us in that one
      // coordinate only.
      CHECK(s.front().dimension == static_cast<int>(j));
      const auto me = dims.coords(rank);
      for (const Step& step : s)
        for (const auto* list : {&step.sends, &step.recvs})
          for (const Transfer& t : *list) {
            const auto them = dims.coords(t.peer);
            for (int d = 0; d < 3; ++d)
              if (d != step.dimension)
                CHECK(them[static_cast<std::size_t>(d)] == me[static_cast<std::size_t>(d)]);
            CHECK(t.offset >= slices[j].offset);
            CHECK(t.offset + t.bytes <= slices[j].offset + slices[j].bytes);
          }
      // Pieces shrink on the way out: the last reduce-scatter step moves at most S/(p R).
      const Step& last_rs = s[11];
      CHECK(last_rs.reduce);
      CHECK(last_rs.recvs[0].bytes <= 4u * ((count / 3 + 1) / 3 / 5 / 7 + 1));
    }
  }
}

TEST_CASE("ddl rejects options it cannot honour", "[schedule][ddl]") {
  Options opts;
  opts.rings = 0;
  CHECK_THROWS_WITH(ddl_schedules(Dims::parse("4x2"), 0, 64, 4, opts), Catch::Contains("rings"));
  opts.rings = 1;
  opts.methods = {IntraMethod::ring};
  CHECK_THROWS_WITH(ddl_schedules(Dims::parse("4x2"), 0, 64, 4, opts),
                    Catch::Contains("1 per-dimension methods") && Catch::Contains("'4x2'"));
  opts.methods = {IntraMethod::halving_doubling, IntraMethod::halving_doubling};
  CHECK_THROWS_WITH(ddl_schedules(Dims::parse("4x3"), 0, 64, 4, opts),
                    Catch::Contains("power-of-two") && Catch::Contains("dimension 2"));
}

TEST_CASE("ring windows concatenate to the whole ring", "[schedule]") {
  Group group{{0, 1, 2, 3, 4, 5, 6}, 3};
  for (bool rs : {true, false}) {
    const Schedule whole = rs ? ring_reduce_scatter(group, Block{0, 700}, 4, 1)
                              : ring_allgather(group, Block{0, 700}, 4, 1);
    Schedule joined;
    for (std::size_t first = 0; first < 8; first += 4) {
      const Schedule part = rs ? ring_reduce_scatter(group, Block{0, 700}, 4, 1, {first, 4})
                               : ring_allgather(group, Block{0, 700}, 4, 1, {first, 4});
      joined.insert(joined.end(), part.begin(), part.end());
    }
    REQUIRE(joined.size() == whole.size());
    for (std::size_t t = 0; t < whole.size(); ++t) {
      CHECK(joined[t].sends == whole[t].sends);
      CHECK(joined[t].recvs == whole[t].recvs);
    }
  }
}
