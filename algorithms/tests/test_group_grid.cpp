// group_grid: a group's own grid from the machine's grid and its members; split_members: the
// group a split makes of every rank's color and key.
#include <array>
#include <catch2/catch.hpp>

#include "algorithms/error.hpp"
#include "algorithms/group_grid.hpp"
#include "algorithms/split_members.hpp"

namespace {

std::vector<int> stride(int first, int count, int step) {
  std::vector<int> ranks;
  for (int i = 0; i < count; ++i) ranks.push_back(first + i * step);
  return ranks;
}

}  // namespace

TEST_CASE("group_grid: consecutive members inside a node", "[group_grid]") {
  const ddl::Dims machine({8, 4});
  CHECK(ddl::group_grid(machine, stride(0, 8, 1)) == ddl::Dims({8}));
  CHECK(ddl::group_grid(machine, stride(16, 8, 1)) == ddl::Dims({8}));
  CHECK(ddl::group_grid(machine, stride(0, 4, 1)) == ddl::Dims({4}));
  CHECK(ddl::group_grid(machine, stride(12, 4, 1)) == ddl::Dims({4}));
  CHECK(ddl::group_grid(machine, stride(0, 16, 1)) == ddl::Dims({8, 2}));  // two whole nodes
  CHECK(ddl::group_grid(machine, stride(0, 32, 1)) == ddl::Dims({8, 4}));  // the machine
  CHECK(ddl::group_grid(machine, {5}) == ddl::Dims({1}));
}

TEST_CASE("group_grid: strided members across nodes", "[group_grid]") {
  const ddl::Dims machine({8, 4});
  CHECK(ddl::group_grid(machine, stride(0, 4, 8)) == ddl::Dims({4}));
  CHECK(ddl::group_grid(machine, stride(3, 4, 8)) == ddl::Dims({4}));
  CHECK(ddl::group_grid(machine, stride(1, 2, 16)) == ddl::Dims({2}));
  // Every other GPU of a node: coordinates {0, 2, 4, 6} are a set like any other.
  CHECK(ddl::group_grid(machine, stride(0, 4, 2)) == ddl::Dims({4}));
  // Three levels: the same GPU of every node of every switch.
  CHECK(ddl::group_grid(ddl::Dims({4, 2, 3}), stride(2, 6, 4)) == ddl::Dims({2, 3}));
}

TEST_CASE("group_grid: consecutive and strided combined", "[group_grid]") {
  const ddl::Dims machine({8, 4});
  CHECK(ddl::group_grid(machine, {0, 1, 8, 9, 16, 17, 24, 25}) == ddl::Dims({2, 4}));
  CHECK(ddl::group_grid(machine, {4, 5, 6, 7, 20, 21, 22, 23}) == ddl::Dims({4, 2}));
  CHECK(ddl::group_grid(ddl::Dims({4, 2, 3}), {0, 1, 4, 5, 16, 17, 20, 21}) ==
        ddl::Dims({2, 2, 2}));
}

TEST_CASE("group_grid: irregular members get the flat grid", "[group_grid]") {
  const ddl::Dims machine({8, 4});
  CHECK(ddl::group_grid(machine, {0, 1, 2, 8}) == ddl::Dims::flat(4));
  CHECK(ddl::group_grid(machine, {0, 9}) == ddl::Dims::flat(2));           // a diagonal
  CHECK(ddl::group_grid(machine, stride(6, 4, 1)) == ddl::Dims::flat(4));  // across two nodes
  CHECK(ddl::group_grid(machine, {0, 1, 8, 9, 16}) == ddl::Dims::flat(5));
}

TEST_CASE("group_grid: refuses what is no set of members", "[group_grid]") {
  const ddl::Dims machine({8, 4});
  CHECK_THROWS_AS(ddl::group_grid(machine, {}), ddl::InvalidArgument);
  CHECK_THROWS_AS(ddl::group_grid(machine, {3, 1}), ddl::InvalidArgument);
  CHECK_THROWS_AS(ddl::group_grid(machine, {1, 1}), ddl::InvalidArgument);
  CHECK_THROWS_AS(ddl::group_grid(machine, {0, 32}), ddl::InvalidArgument);
  CHECK_THROWS_AS(ddl::group_grid(machine, {-1, 0}), ddl::InvalidArgument);
}

TEST_CASE("split_members orders a color's ranks by key, then by parent rank", "[group_grid]") {
  // Parent ranks 0..3 are world ranks 10..13; color 0 holds ranks 0, 2, 3 with keys 3, 1, 1.
  const std::vector<std::array<int, 2>> color_key = {{0, 3}, {1, 0}, {0, 1}, {0, 1}};
  const std::vector<int> world = {10, 11, 12, 13};
  const ddl::SplitGroup mine = ddl::split_members(color_key, world, 2, 0);
  CHECK(mine.members == std::vector<int>{12, 13, 10});
  CHECK(mine.rank == 0);
  CHECK(ddl::split_members(color_key, world, 0, 0).rank == 2);
  const ddl::SplitGroup alone = ddl::split_members(color_key, world, 1, 1);
  CHECK(alone.members == std::vector<int>{11});
  CHECK(alone.rank == 0);
}
