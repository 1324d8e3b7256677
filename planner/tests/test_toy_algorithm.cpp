// Adding an algorithm is its file and its registry entry: a toy allreduce registered here (and
// nowhere else) is in the planner's candidate list with the variants its fields say, priced by
// its own cost function, simulated, and planned, through the stages ddlplan calls.
#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/registry.hpp"
#include "planner/candidates.hpp"
#include "planner/search.hpp"
#include "sim/platform.hpp"
#include "sim/route_topology.hpp"

using namespace ddl;

namespace {

// The toy's price: 1 ns near-first, 2 ns far-first, below every shipped algorithm's.
double toy_cost(const CostQuery& q) {
  return q.options.hd_order == HdOrder::far ? 2e-9 : 1e-9;
}

// Timing-only planning asks of a run only its time: the toy moves nothing, so it simulates in no
// time at all and wins every size. It takes an order, so far-first is a variant of its own.
void register_toy() {
  static const bool once = [] {
    Algorithm toy;
    toy.name = "toy";
    toy.collective = Collective::allreduce;
    toy.run = [](auto&&...) {};
    toy.cost = toy_cost;
    toy.summary = "does nothing, at once";
    toy.fields = kSpecOrder;
    toy.plan = kPlanPlain;
    register_test_algorithm(std::move(toy));
    return true;
  }();
  (void)once;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

TEST_CASE("toy algorithm: a registered allreduce is a candidate with its variants",
          "[planner][toy]") {
  const std::vector<std::string> shipped = candidate_algorithms(8, SearchSpace{});
  register_toy();
  const std::vector<std::string> with_toy = candidate_algorithms(8, SearchSpace{});
  // After the shipped plain names and after their variants: nothing else moves.
  std::vector<std::string> expected = shipped;
  expected.insert(expected.begin() + 5, "toy");
  expected.insert(expected.begin() + 7, "toy:order=far");
  CHECK(with_toy == expected);
  CHECK(candidate_variants("toy", SearchSpace{}) == std::vector<std::string>{"toy:order=far"});
  CHECK_FALSE(contains(every_size_candidates(), "toy"));
  // No transfer bound registered: the whole buffer.
  CHECK(largest_transfer("toy", Dims::parse("8"), 1 << 20) == std::size_t{1} << 20);
  CHECK(parse_algorithm_spec("toy:order=far").order == HdOrder::far);
  CHECK_THROWS_AS(register_test_algorithm(*find_registered("toy")), InvalidArgument);
}

TEST_CASE("toy algorithm: priced by its own cost, simulated and planned", "[planner][toy]") {
  register_toy();
  auto& engine = sim::start_engine("ddl_planner_toy_tests");
  const sim::Platform platform =
      sim::load_platform(engine, std::string(DDL_PLATFORMS) + "/s822lc_1.xml");
  const Dims dims = sim::choose_dims(platform, std::nullopt);
  const sim::RouteTopology topology(platform);
  const std::vector<std::size_t> sizes = {8, 4096, std::size_t{1} << 20};
  const planner::Pricing pricing = planner::platform_pricing(platform, topology, dims, sizes, 2);
  SearchSpace base;
  base.rings = {1};
  base.both_orders = false;
  const std::vector<std::string> candidates = candidate_algorithms(platform.ranks(), base);
  REQUIRE(contains(candidates, "toy"));
  const SearchSpace space;
  const std::set<std::string> shortlisted =
      planner::shortlist(pricing, candidates, planner::anchor_sizes(sizes), 3, space);
  CHECK(shortlisted.count("toy") == 1);
  CHECK(shortlisted.count("toy:order=far") == 1);
  std::vector<planner::SizeTrial> trials =
      planner::confirmation_trials(pricing, shortlisted, sizes, 3);
  for (const planner::SizeTrial& t : trials) {
    INFO(t.bytes << " B");
    REQUIRE(t.algorithms.size() >= 2);
    CHECK(t.algorithms[0] == "toy");
    CHECK(t.model_us[0] == 1e-9 * 1e6);
    CHECK(t.algorithms[1] == "toy:order=far");
    CHECK(t.model_us[1] == 2e-9 * 1e6);
  }
  const planner::Simulator simulate = [&](const std::vector<planner::SimulationJob>& jobs) {
    return planner::simulate_jobs(platform, pricing.options, jobs, 2, 120, {});
  };
  planner::simulate_pending(trials, simulate);
  planner::add_segment_variants(trials, pricing, space);
  planner::simulate_pending(trials, simulate);
  const PlanFile file = planner::choose_plan(trials, platform.ranks(), candidates.size());
  REQUIRE(file.plan.entries.size() == 1);
  CHECK(file.plan.entries[0].algorithm == "toy");
  REQUIRE(file.evidence.size() == sizes.size());
  for (const PlanEvidence& e : file.evidence) {
    INFO(e.bytes << " B");
    CHECK(e.algorithm == "toy");
    CHECK(e.model_us == 1e-9 * 1e6);
    CHECK(e.simulated_us == 0);  // it moved nothing
    CHECK(e.alpha_beta == "toy");
    CHECK(e.candidates == candidates.size());
  }
}
