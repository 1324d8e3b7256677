// Pricing schedules: the order of halving-doubling's distances over two link classes, and
// contention over a hand-made topology (two nodes of two ranks, one NIC each way per node).
#include <catch2/catch.hpp>

#include "algorithms/cost_model.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/topology.hpp"

using namespace ddl;
using Catch::Detail::Approx;

namespace {

CostParams costs(std::vector<LinkCost> per_dim, double gamma) {
  CostParams c;
  c.per_dim = std::move(per_dim);
  c.gamma = gamma;
  return c;
}

Options with_order(HdOrder order) {
  Options o;
  o.hd_order = order;
  return o;
}

// Ranks 2n and 2n+1 share node n. Inside a node: one link per ordered pair (40 GB/s, 0.5 us);
// between nodes: the source node's NIC out, then the destination node's NIC in (10 GB/s,
// 1 us each), shared by the flows crossing them unless `nic_shared` is false.
class TwoNodes : public Topology {
 public:
  explicit TwoNodes(bool nic_shared) {
    routes_.resize(16);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        if (a == b) continue;
        std::vector<RouteLink>& r = routes_[static_cast<std::size_t>(4 * a + b)];
        if (a / 2 == b / 2) {
          r.push_back({4 + 4 * a + b, 40e9, 0.5e-6, true});
        } else {
          r.push_back({a / 2, 10e9, 1e-6, nic_shared});      // NIC out of a's node
          r.push_back({2 + b / 2, 10e9, 1e-6, nic_shared});  // NIC into b's node
        }
      }
  }
  int ranks() const override { return 4; }
  int link_count() const override { return 20; }
  const std::vector<RouteLink>& route(int src, int dst) const override {
    return routes_[static_cast<std::size_t>(4 * src + dst)];
  }

 private:
  std::vector<std::vector<RouteLink>> routes_;
};

// The same machine as link classes: dimension 1 in the node, dimension 2 between nodes.
const CostParams two_nodes = costs({{0.5e-6, 1 / 40e9}, {2e-6, 1 / 10e9}}, 1e-11);

}  // namespace

TEST_CASE("rhd near-first keeps the large halves on the inner class", "[cost][rhd]") {
  // 8 ranks on 4x2 (dimension 1: 1 us, 1 ns/B; dimension 2: 2 us, 4 ns/B), 8000 B. Near-first:
  // 4000 B and 2000 B inside the node, 1000 B between nodes; far-first the 4000 B between.
  const CostParams c = costs({{1e-6, 1e-9}, {2e-6, 4e-9}}, 1e-10);
  const Dims grid = Dims::parse("4x2");
  CHECK(model_time("rhd", grid, c, 8000, with_order(HdOrder::near)) ==
        Approx((5.4 + 3.2 + 6.1 + 6 + 3 + 5) * 1e-6));
  CHECK(model_time("rhd", grid, c, 8000, with_order(HdOrder::far)) ==
        Approx((18.4 + 3.2 + 2.1 + 2 + 3 + 18) * 1e-6));
  // On one class the order changes nothing: 2 log2 8 α + 2 (7/8) S β + (7/8) S γ.
  const CostParams one = costs({{1e-6, 1e-9}}, 1e-10);
  for (HdOrder order : {HdOrder::near, HdOrder::far})
    CHECK(model_time("rhd", Dims::flat(8), one, 8000, with_order(order)) ==
          Approx(6e-6 + 14e-6 + 0.7e-6));
}

TEST_CASE("ddl's hd dimensions follow the order too", "[cost][ddl]") {
  // ddl on a single dimension of 8 with hd is rhd on 8 ranks: the classes come from the
  // grid's one dimension, so both orders cost alike; flat rhd over 4x2 is priced above.
  const CostParams c = costs({{1e-6, 1e-9}}, 1e-10);
  for (HdOrder order : {HdOrder::near, HdOrder::far}) {
    Options o = with_order(order);
    o.methods = {IntraMethod::halving_doubling};
    CHECK(model_time("ddl", Dims::flat(8), c, 8000, o) == Approx(6e-6 + 14e-6 + 0.7e-6));
  }
}

TEST_CASE("contention: flows on one shared link split its bandwidth", "[cost][topology]") {
  const TwoNodes shared(true), fatpipe(false);
  const Dims grid = Dims::parse("2x2");
  const double S = 4e6;
  // rhd far-first, 4 MB: distance 2 puts two flows (0->2, 1->3) on node 0's NIC out each way:
  // 2 us + 2 MB x 2 / 10 GB/s = 402 us; distance 1 stays in the node: 0.5 us + 1 MB / 40 GB/s.
  // Each rank reduces 2 MB, then 1 MB (γ 0.01 ns/B).
  const double far = 2 * (2e-6 + 2e6 * 2 / 10e9) + 2 * (0.5e-6 + 1e6 / 40e9) + 3e6 * 1e-11;
  CHECK(model_time("rhd", grid, two_nodes, 4000000, with_order(HdOrder::far), &shared) ==
        Approx(far));
  // Near-first: 2 MB in the node, 1 MB across (still two flows per NIC).
  const double near = 2 * (0.5e-6 + 2e6 / 40e9) + 2 * (2e-6 + 1e6 * 2 / 10e9) + 3e6 * 1e-11;
  CHECK(model_time("rhd", grid, two_nodes, 4000000, with_order(HdOrder::near), &shared) ==
        Approx(near));
  // A non-shared (FATPIPE) NIC gives every flow its full bandwidth: the link-class figures.
  const double far_free = 2 * (2e-6 + 2e6 / 10e9) + 2 * (0.5e-6 + 1e6 / 40e9) + 3e6 * 1e-11;
  CHECK(model_time("rhd", grid, two_nodes, 4000000, with_order(HdOrder::far), &fatpipe) ==
        Approx(far_free));
  CHECK(model_time("rhd", grid, two_nodes, 4000000, with_order(HdOrder::far)) == Approx(far_free));
  // The ring 0 -> 1 -> 2 -> 3 -> 0 puts one flow on each NIC direction: no contention; every
  // step waits for a cross-node block of S/4 (2 us + 1 MB / 10 GB/s).
  const double ring = 6 * (2e-6 + S / 4 / 10e9) + 3 * S / 4 * 1e-11;
  CHECK(model_time("ring", grid, two_nodes, 4000000, Options{}, &shared) == Approx(ring));
  // auto over the topology takes the argmin of the contention-aware prices.
  const std::string best = best_allreduce(grid, two_nodes, 4000000, Options{}, &shared);
  for (const char* name : {"ring", "ddl", "rhd", "dbtree", "hier"})
    CHECK(model_time(best, grid, two_nodes, 4000000, Options{}, &shared) <=
          model_time(name, grid, two_nodes, 4000000, Options{}, &shared));
}

TEST_CASE("price_schedules: concurrent messages of one rank share its link", "[cost]") {
  // Rank 0 sends 1000 B to each of ranks 1 and 2 in one step; rank 1 then sends 500 B to 2.
  const CostParams c = costs({{1e-6, 1e-9}}, 1e-10);
  const Options o;
  const CostQuery q{Dims::flat(3), 1000, o, c, nullptr};
  const double t = price_schedules(q, [](int rank) {
    Schedule s(2);
    if (rank == 0) s[0].sends = {{1, 0, 1000}, {2, 0, 1000}};
    if (rank == 1) s[0].recvs = {{0, 0, 1000}};
    if (rank == 2) s[0].recvs = {{0, 0, 1000}};
    if (rank == 1) s[1].sends = {{2, 0, 500}};
    if (rank == 2) s[1] = Step{{}, {{1, 0, 500}}, true, "", -1};
    return std::vector<Schedule>{s};
  });
  // Step 0: one α, 2000 B on rank 0's link; step 1: 500 B, reduced.
  CHECK(t == Approx(1e-6 + 2000e-9 + 1e-6 + 500e-9 + 500e-10));
}

TEST_CASE("the topology must fit the grid", "[cost][topology][errors]") {
  const TwoNodes topo(true);
  CHECK_THROWS_WITH(model_time("ring", Dims::parse("2x4"), costs({{1e-6, 1e-9}, {1e-6, 1e-9}}, 0),
                               64, Options{}, &topo),
                    Catch::Contains("4 ranks") && Catch::Contains("'2x4'"));
}
