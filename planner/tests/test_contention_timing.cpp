// The contention-aware price the planner ranks by (algorithms/schedule_cost.hpp): each rank
// keeps its own clock, and a shared link serves the flows crossing it as a processor-sharing
// queue from their arrival, so flows share it only while their transfers overlap in time.
// Hand-made machine: ranks 0 and 1 send to ranks 2 and 3 over one shared link L; rank 3 reaches
// rank 1 over a private link first, so rank 1's send over L starts late.
#include <catch2/catch.hpp>

#include "algorithms/schedule_cost.hpp"
#include "algorithms/topology.hpp"

using namespace ddl;
using Catch::Detail::Approx;

namespace {

// L (id 0) carries 0 -> 2 and 1 -> 3, shared; every other ordered pair has its own link
// (id 1 + 4 * src + dst), not shared. Every link: 1 GB/s, 1 us.
class SharedLink : public Topology {
 public:
  SharedLink() {
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        const bool on_l = (a == 0 && b == 2) || (a == 1 && b == 3);
        routes_.push_back({{on_l ? 0 : 1 + 4 * a + b, 1e9, 1e-6, on_l}});
      }
  }
  int ranks() const override { return 4; }
  int link_count() const override { return 17; }
  const std::vector<RouteLink>& route(int src, int dst) const override {
    return routes_[static_cast<std::size_t>(4 * src + dst)];
  }

 private:
  std::vector<std::vector<RouteLink>> routes_;
};

// Step 0: rank 3 -> rank 1, `first` bytes (private link). Step 1: 0 -> 2 `a` bytes and
// 1 -> 3 `b` bytes, both over L. Step 2: 0 -> 2 `again` bytes over L. Plain receives.
double price(double first, double a, double b, double again = 0) {
  const SharedLink topo;
  CostParams c;
  c.per_dim = {{1e-6, 1e-9}};
  const Options o;
  const CostQuery q{Dims::flat(4), 4096, o, c, &topo};
  return price_schedules(q, [=](int rank) {
    Schedule s(3);
    const auto n = [](double x) { return static_cast<std::size_t>(x); };
    if (rank == 3) s[0].sends = {{1, 0, n(first)}};
    if (rank == 1) s[0].recvs = {{3, 0, n(first)}};
    if (rank == 0) s[1].sends = {{2, 0, n(a)}};
    if (rank == 2) s[1].recvs = {{0, 0, n(a)}};
    if (rank == 1) s[1].sends = {{3, 0, n(b)}};
    if (rank == 3) s[1].recvs = {{1, 0, n(b)}};
    if (rank == 0) s[2].sends = {{2, 0, n(again)}};
    if (rank == 2) s[2].recvs = {{0, 0, n(again)}};
    return std::vector<Schedule>{s};
  });
}

}  // namespace

TEST_CASE("contention: flows that do not overlap in time do not share", "[cost][topology]") {
  // 3 -> 1 takes 1 us + 2000 B / 1 GB/s = 3 us. 0 -> 2 does not wait for it: it moves its
  // 1000 B over L in [1 us, 2 us]; 1 -> 3 starts at 3 us and moves in [4 us, 5 us]. A lockstep
  // price would be 3 us + (1 us + 2000 B over L) = 6 us.
  CHECK(price(2000, 1000, 1000) == Approx(5e-6));
}

TEST_CASE("contention: flows that overlap in part share in part", "[cost][topology]") {
  // 3 -> 1: 2 us. 0 -> 2 (3000 B) has L to itself from 1 us to 3 us (2000 B), when 1 -> 3
  // (1000 B) arrives; then each gets half: 1000 B each at 0.5 GB/s, both ending at 5 us.
  // (A lockstep price: 2 us + (1 us + 4000 B over L) = 7 us.)
  CHECK(price(1000, 3000, 1000) == Approx(5e-6));
}

TEST_CASE("contention: flows in lockstep share for their whole life", "[cost][topology]") {
  // Nothing before step 1 (0 bytes): both flows span [1 us, 2 us] alone, so each gets half of
  // L: 1 us + 1000 B x 2 / 1 GB/s = 3 us.
  CHECK(price(0, 1000, 1000) == Approx(3e-6));
}

TEST_CASE("contention: a link serves a step's flows after the earlier steps'", "[cost][topology]") {
  // As the first case, then 0 -> 2 again (1000 B): ranks 0 and 2 are done with step 1 at 2 us,
  // so it arrives at L at 3 us, but L serves step 1's 1 -> 3 until 5 us first: it ends at 6 us.
  // (This keeps a saturated link's throughput across ranks whose clocks have drifted apart; on
  // an idle link it is pessimistic: here L is idle in [2 us, 4 us] and the fluid answer is 5 us.)
  CHECK(price(2000, 1000, 1000, 1000) == Approx(6e-6));
}
