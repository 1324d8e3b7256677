// Per-class message factors (ddl_node / ddl_leaf on the hosts, ddl_<class>_*_factors on the root
// zone) in the model column: each dimension's α and β follow the class of its ring neighbours.
// multilevel_8.xml: 2 GPUs x 2 nodes x 2 leaves, routes of 2 / 10 / 30 us over 10 / 1 / 1 GB/s;
// latency x2 and bandwidth x0.5 unless a class says otherwise (node: bandwidth x1; leaf: x1 and
// x0.5 below 1 MiB, x3 and x0.25 from it).
#include <catch2/catch.hpp>

#include "child_process.hpp"

using namespace ddl::test;

namespace {

// "dim alpha beta" lines of sim_probe costs, as numbers.
std::vector<std::pair<double, double>> costs(const std::string& args) {
  const ChildResult r = run_child(probe() + " " + fixture("multilevel_8.xml") + " costs " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::pair<double, double>> per_dim;
  for (const std::string& line : split(r.out, '\n')) {
    const std::vector<std::string> cells = split(line, ' ');
    if (cells.size() == 3) per_dim.emplace_back(std::stod(cells[1]), std::stod(cells[2]));
  }
  return per_dim;
}

}  // namespace

TEST_CASE("the model column takes each dimension's class factors", "[sim][platform]") {
  // Plain routes (what auto and the header use): no factors.
  const auto plain = costs("2x2x2");
  REQUIRE(plain.size() == 3);
  CHECK(plain[0].first == Approx(2e-6));
  CHECK(plain[0].second == Approx(1 / 10e9));
  CHECK(plain[1].first == Approx(10e-6));
  CHECK(plain[1].second == Approx(1 / 1e9));
  CHECK(plain[2].first == Approx(30e-6));
  CHECK(plain[2].second == Approx(1 / 1e9));
  // A 4 MiB collective: each dimension's ring block is 2 MiB, at its class's factors.
  const auto blocks = costs("2x2x2 4194304");
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].first == Approx(2 * 2e-6));   // node: class-less latency factor
  CHECK(blocks[0].second == Approx(1 / 10e9));  // its own bandwidth factor 1
  CHECK(blocks[1].first == Approx(3 * 10e-6));  // leaf, from 1 MiB
  CHECK(blocks[1].second == Approx(1 / 0.25e9));
  CHECK(blocks[2].first == Approx(2 * 30e-6));  // spine: the class-less tables
  CHECK(blocks[2].second == Approx(1 / 0.5e9));
}
