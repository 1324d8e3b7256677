// The links between nodes fitted from synthetic measurements (calibrate/network_model.hpp):
// latencies from the classes' fits, the NIC's capacity from the flows through it, the uplink's
// from the uplink pattern, and the model's prediction of every pattern.
#include <catch2/catch.hpp>

#include "algorithms/error.hpp"
#include "calibrate/network_model.hpp"

using namespace ddl;
using namespace ddl::calibrate;

namespace {

constexpr double kMiB = 1 << 20;
const Topology kTwoLeaves{2, 2, 2};

// Leaf: 30 us + n / 40 MB/s. Spine: 50 us + n / `spine_bw`.
std::vector<ClassPingpong> lone(double spine_bw) {
  return {{LinkClass::leaf, {{0, 30e-6, 1 / 40e6}}, 4 * kMiB, {}},
          {LinkClass::spine, {{0, 50e-6, 1 / spine_bw}}, 4 * kMiB, {}}};
}

// Two flows through a NIC direction at 22 MB/s each (44 MB/s in all), one way and both ways;
// two flows through an uplink at `uplink_speed` each.
std::vector<NetworkPoint> points(double uplink_speed) {
  std::vector<NetworkPoint> p;
  for (double n : {kMiB, 4 * kMiB}) {
    p.push_back({LinkClass::leaf, n, 30e-6 + n / 22e6, 2, 0});
    p.push_back({LinkClass::leaf, n, 30e-6 + n / 22e6, 2, 0});
    p.push_back({LinkClass::spine, n, 50e-6 + n / uplink_speed, 1, 2});
  }
  // Latency-bound: says nothing about capacity.
  p.push_back({LinkClass::leaf, 64, 10e-3, 2, 0});
  return p;
}

}  // namespace

TEST_CASE("an uplink that limits even one flow gets its real rate", "[calibrate]") {
  // A lone spine flow runs at half a leaf one's (20 of 40 MB/s): the uplink carries half a NIC's
  // rate; two flows through it get 10 MB/s each, which that rate explains exactly.
  const NetworkModel m = fit_network(kTwoLeaves, lone(20e6), points(10e6));
  CHECK(m.nic_latency == Approx(15e-6).epsilon(1e-12));
  CHECK(m.uplink_latency == Approx(10e-6).epsilon(1e-12));
  CHECK(m.nic_bandwidth == Approx(44e6).epsilon(1e-12));
  CHECK(m.uplink_bandwidth == Approx(22e6).epsilon(1e-12));
  REQUIRE(m.classes.size() == 2);
  CHECK(m.of(LinkClass::leaf).route_latency == Approx(30e-6).epsilon(1e-12));
  CHECK(m.of(LinkClass::leaf).bottleneck == Approx(44e6).epsilon(1e-12));
  CHECK(m.of(LinkClass::spine).route_latency == Approx(50e-6).epsilon(1e-12));
  CHECK(m.of(LinkClass::spine).bottleneck == Approx(22e6).epsilon(1e-12));
  // A lone flow takes its fitted time; flows of one class through one NIC share it: each at 1/2
  // of a lone flow's speed (20 MB/s, not the 22 measured: the weights of SimGrid's sharing).
  CHECK(predict(m, {LinkClass::leaf, kMiB, 0, 1, 0}) == Approx(30e-6 + kMiB / 40e6).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::leaf, kMiB, 0, 2, 0}) == Approx(30e-6 + kMiB / 20e6).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::spine, kMiB, 0, 1, 1}) ==
        Approx(50e-6 + kMiB / 20e6).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::spine, 4 * kMiB, 0, 1, 2}) ==
        Approx(50e-6 + 4 * kMiB / 10e6).epsilon(1e-12));
}

TEST_CASE("an uplink that slows only several flows is fitted to their share", "[calibrate]") {
  // Lone spine flows as fast as leaf ones; two through an uplink at 30 of 40 MB/s each: the
  // uplink moves 1.5 NICs' worth.
  const NetworkModel m = fit_network(kTwoLeaves, lone(40e6), points(30e6));
  CHECK(m.uplink_bandwidth == Approx(1.5 * 44e6).epsilon(1e-12));
  CHECK(m.of(LinkClass::spine).bottleneck == Approx(44e6).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::spine, kMiB, 0, 1, 2}) ==
        Approx(50e-6 + kMiB / 30e6).epsilon(1e-12));
  // Not slowed at all: K NICs' worth, enough for one flow per node.
  const NetworkModel full = fit_network(kTwoLeaves, lone(40e6), points(40e6));
  CHECK(full.uplink_bandwidth == Approx(2 * 44e6).epsilon(1e-12));
  CHECK(predict(full, {LinkClass::spine, kMiB, 0, 1, 2}) ==
        Approx(50e-6 + kMiB / 40e6).epsilon(1e-12));
}

TEST_CASE("one leaf has no uplink, and one node per leaf gives the uplink the NIC rate",
          "[calibrate]") {
  std::vector<NetworkPoint> nic_only = points(10e6);
  nic_only.erase(
      std::remove_if(nic_only.begin(), nic_only.end(),
                     [](const NetworkPoint& p) { return p.link_class == LinkClass::spine; }),
      nic_only.end());
  const NetworkModel leaf = fit_network(Topology{2, 2, 1}, {lone(20e6).front()}, nic_only);
  CHECK(leaf.classes.size() == 1);
  CHECK(leaf.nic_bandwidth == Approx(44e6).epsilon(1e-12));
  CHECK(leaf.uplink_bandwidth == 0);
  CHECK_THROWS_WITH(leaf.of(LinkClass::spine), "calibration: the spine class was not measured");
  // Every node its own leaf: NICs and uplinks carry the same flows (two per direction).
  const NetworkModel spread = fit_network(Topology{2, 1, 2}, {lone(20e6).back()},
                                          {{LinkClass::spine, kMiB, 50e-6 + kMiB / 11e6, 2, 2}});
  CHECK(spread.nic_latency == Approx(25e-6).epsilon(1e-12));
  CHECK(spread.uplink_latency == 0);
  CHECK(spread.nic_bandwidth == Approx(22e6).epsilon(1e-12));
  CHECK(spread.uplink_bandwidth == Approx(22e6).epsilon(1e-12));
  CHECK(spread.of(LinkClass::spine).route_latency == Approx(50e-6).epsilon(1e-12));
}

TEST_CASE("without transfer-bound NIC points the NIC carries a lone flow's need", "[calibrate]") {
  const NetworkModel m =
      fit_network(Topology{2, 2, 1}, {lone(20e6).front()}, {{LinkClass::leaf, 64, 10e-3, 2, 0}});
  CHECK(m.nic_bandwidth == Approx(40e6).epsilon(1e-12));
  CHECK_THROWS_WITH(fit_network(kTwoLeaves, {lone(20e6).front()}, {}),
                    "calibration: no ping-pong fit of the spine class");
}

TEST_CASE("a route's latency is the median small message, not one slow draw", "[calibrate]") {
  ClassPingpong leaf = lone(20e6).front();
  // Latency-bound below 1200 B (30 us + n / 40 MB/s); 8 B once took 172 us.
  leaf.medians = {{8, 172e-6}, {16, 22e-6}, {64, 20e-6}, {512, 25e-6}, {kMiB, 30e-6 + kMiB / 40e6}};
  CHECK(route_latency_of(leaf) == Approx(23.5e-6).epsilon(1e-12));
  CHECK(route_latency_of(lone(20e6).front()) ==
        Approx(30e-6).epsilon(1e-12));  // no medians: the fit's
  ClassPingpong spine = lone(20e6).back();
  spine.medians = {{8, 41.5e-6}, {kMiB, 50e-6 + kMiB / 20e6}};
  const NetworkModel m = fit_network(kTwoLeaves, {leaf, spine}, points(10e6));
  CHECK(m.nic_latency == Approx(11.75e-6).epsilon(1e-12));
  CHECK(m.uplink_latency == Approx(9e-6).epsilon(1e-12));
}

namespace {

// Leaf flows of `ranks_per_node` ranks per node: one way at the split NIC's share (each of G
// flows at 1/G of a lone flow's 40 MB/s), and both ways `slowdown` times slower in transfer.
std::vector<NetworkPoint> both_ways(int g, double slowdown) {
  std::vector<NetworkPoint> p;
  for (double n : {kMiB, 4 * kMiB}) {
    p.push_back({LinkClass::leaf, n, 30e-6 + n * g / 40e6, g, 0, g});
    p.push_back({LinkClass::leaf, n, 30e-6 + slowdown * n * g / 40e6, g, 0, 2 * g});
  }
  p.push_back({LinkClass::leaf, 64, 10e-3, g, 0, 2 * g});  // latency-bound: ignored
  return p;
}

}  // namespace

TEST_CASE("a NIC slower both ways at once gets a duplex link fitted per flow count",
          "[calibrate]") {
  const std::vector<ClassPingpong> leaf{lone(20e6).front()};
  // One flow each way, each 1.6x a lone flow's transfer: 2 flows share 2 x 40 / 1.6 = 1.25
  // NICs' worth.
  const NetworkModel one = fit_network(Topology{1, 2, 1}, leaf, both_ways(1, 1.6));
  CHECK(one.nic_bandwidth == Approx(40e6).epsilon(1e-12));  // no one-way point of 2 flows
  REQUIRE(one.duplex_by_flows.size() == 1);
  CHECK(one.duplex_by_flows[0].flows == 2);
  CHECK(one.duplex_by_flows[0].factor == Approx(1.25).epsilon(1e-12));
  CHECK(one.duplex_capacity(1) == Approx(40e6).epsilon(1e-12));
  CHECK(one.duplex_capacity(3) == Approx(50e6).epsilon(1e-12));
  for (const NetworkPoint& p : both_ways(1, 1.6))
    if (p.bytes > 64) CHECK(predict(one, p) == Approx(p.seconds).epsilon(1e-12));
  // A lone flow, and two flows one way (duplex 1.25 NICs / 2 > the split NIC's 1 / 2), as before.
  CHECK(predict(one, {LinkClass::leaf, kMiB, 0, 1, 0}) ==
        Approx(30e-6 + kMiB / 40e6).epsilon(1e-12));
  CHECK(predict(one, {LinkClass::leaf, kMiB, 0, 2, 0}) ==
        Approx(30e-6 + kMiB / 20e6).epsilon(1e-12));

  // Two flows each way, 1.6x the two-flows-one-way transfer: 4 flows share 1.25 NICs; one way
  // (2 flows) unchanged; one flow each way (2 flows, not measured) takes the same slowdown
  // against the split NIC from 2 flows on: 1.25.
  const std::vector<NetworkPoint> two = both_ways(2, 1.6);
  const NetworkModel m = fit_network(Topology{2, 2, 1}, leaf, two);
  REQUIRE(m.duplex_by_flows.size() == 2);
  CHECK(m.duplex_by_flows[0].flows == 2);
  CHECK(m.duplex_by_flows[0].factor == Approx(1.25).epsilon(1e-12));
  CHECK(m.duplex_by_flows[1].flows == 4);
  CHECK(m.duplex_by_flows[1].factor == Approx(1.25).epsilon(1e-12));
  for (const NetworkPoint& p : two)
    if (p.bytes > 64) CHECK(predict(m, p) == Approx(p.seconds).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::leaf, kMiB, 0, 1, 0, 2}) ==
        Approx(30e-6 + 1.6 * kMiB / 40e6).epsilon(1e-12));

  // Within the tolerance (4 %): no duplex link, every prediction as without one.
  const NetworkModel near = fit_network(Topology{2, 2, 1}, leaf, both_ways(2, 1.04));
  CHECK(near.duplex_by_flows.empty());
  CHECK(predict(near, both_ways(2, 1.04)[1]) == Approx(30e-6 + 2 * kMiB / 40e6).epsilon(1e-12));
}

TEST_CASE("the duplex never binds one-way traffic below the split NIC", "[calibrate]") {
  const std::vector<ClassPingpong> leaf{lone(20e6).front()};
  // One flow each way at 2.5x a lone flow: 0.8 NICs would explain it, but two flows one way
  // would then get less than the split NIC's half: the factor stays 1 (both ways 2x, -20 %).
  const NetworkModel m = fit_network(Topology{1, 2, 1}, leaf, both_ways(1, 2.5));
  REQUIRE(m.duplex_by_flows.size() == 1);
  CHECK(m.duplex_by_flows[0].factor == 1);
  CHECK(predict(m, {LinkClass::leaf, kMiB, 0, 1, 0, 2}) ==
        Approx(30e-6 + 2 * kMiB / 40e6).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::leaf, kMiB, 0, 2, 0}) == Approx(30e-6 + kMiB / 20e6).epsilon(1e-12));
  // A larger count that is not slowed gets the split's own factor, not the smaller one's.
  std::vector<NetworkPoint> mixed = both_ways(1, 1.6);
  for (double n : {kMiB, 4 * kMiB})
    mixed.push_back({LinkClass::leaf, n, 30e-6 + 2 * n / 40e6, 2, 0, 4});
  const NetworkModel k = fit_network(Topology{1, 2, 1}, leaf, mixed);
  REQUIRE(k.duplex_by_flows.size() == 2);
  CHECK(k.duplex_by_flows[0].factor == Approx(1.25).epsilon(1e-12));
  CHECK(k.duplex_by_flows[1].flows == 4);
  CHECK(k.duplex_by_flows[1].factor == Approx(2).epsilon(1e-12));
}

namespace {

// G = 2 ranks per node, lone leaf flow 30 us + n / 40 MB/s, at 1 and 4 MB: two flows one way at
// the split NIC's half each; one flow each way by two pairs as fast as alone; two flows each way
// 1.6x two one way; one pair both ways `exchange` times a lone flow's transfer.
std::vector<NetworkPoint> pairs_apart(double exchange) {
  std::vector<NetworkPoint> p;
  for (double n : {kMiB, 4 * kMiB}) {
    p.push_back({LinkClass::leaf, n, 30e-6 + 2 * n / 40e6, 2, 0, 2, 1});         // one way
    p.push_back({LinkClass::leaf, n, 30e-6 + n / 40e6, 1, 0, 2, 1});             // crossed
    p.push_back({LinkClass::leaf, n, 30e-6 + 1.6 * 2 * n / 40e6, 2, 0, 4, 2});   // both
    p.push_back({LinkClass::leaf, n, 30e-6 + exchange * n / 40e6, 1, 0, 2, 2});  // exchange
  }
  p.push_back({LinkClass::leaf, 64, 10e-3, 1, 0, 2, 2});  // latency-bound: ignored
  return p;
}

}  // namespace

TEST_CASE("one pair both ways and two pairs crossing a NIC are fitted apart", "[calibrate]") {
  const std::vector<ClassPingpong> leaf{lone(20e6).front()};
  const NetworkModel m = fit_network(Topology{2, 2, 1}, leaf, pairs_apart(2));
  // Two pairs crossing: measured, not slowed (2 NICs' worth: each direction its own NIC);
  // two each way: 4 flows share 1.25 NICs; the exchange: the pair carries one NIC in all.
  REQUIRE(m.duplex_by_flows.size() == 2);
  CHECK(m.duplex_by_flows[0].flows == 2);
  CHECK(m.duplex_by_flows[0].factor == Approx(2).epsilon(1e-12));
  CHECK(m.duplex_by_flows[1].flows == 4);
  CHECK(m.duplex_by_flows[1].factor == Approx(1.25).epsilon(1e-12));
  CHECK(m.pair_factor == Approx(1).epsilon(1e-12));
  for (const NetworkPoint& p : pairs_apart(2))
    if (p.bytes > 64) CHECK(predict(m, p) == Approx(p.seconds).epsilon(1e-12));
  // Within the tolerance: no pair link, and the duplex as fitted.
  const NetworkModel near = fit_network(Topology{2, 2, 1}, leaf, pairs_apart(1.04));
  CHECK(near.pair_factor == 0);
  CHECK(near.duplex_by_flows == m.duplex_by_flows);
  // Without the exchange, nothing changes: no pair link.
  std::vector<NetworkPoint> no_exchange = pairs_apart(2);
  std::erase_if(no_exchange, [](const NetworkPoint& p) {
    return p.flows_per_pair == 2 && duplex_flows(p) == 2;
  });
  CHECK(fit_network(Topology{2, 2, 1}, leaf, no_exchange).pair_factor == 0);
}

TEST_CASE("one rank per node: a pair both ways is the NIC both ways, fitted as the duplex",
          "[calibrate]") {
  // nic_bidirectional with G = 1 is one pair both ways: the duplex takes it, no pair link.
  std::vector<NetworkPoint> p = both_ways(1, 1.6);
  for (NetworkPoint& q : p) q.flows_per_pair = q.flows_per_duplex;
  const NetworkModel m = fit_network(Topology{1, 2, 1}, {lone(20e6).front()}, p);
  CHECK(m.pair_factor == 0);
  REQUIRE(m.duplex_by_flows.size() == 1);
  CHECK(m.duplex_by_flows[0].factor == Approx(1.25).epsilon(1e-12));
}

TEST_CASE("an uplink slower both ways gets leaf<j>-duplex, one way keeps the uplink share",
          "[calibrate]") {
  // Lone spine flows as fast as leaf ones; the uplink moves 1.5 NICs' worth (two flows one way
  // at 30 MB/s each). Two flows each way through each uplink (uplink_bidirectional: one each way
  // through each NIC, 4 through the uplink both ways) at `speed` each.
  const auto with_both_ways = [](double speed) {
    std::vector<NetworkPoint> p = points(30e6);
    for (double n : {kMiB, 4 * kMiB})
      p.push_back({LinkClass::spine, n, 50e-6 + n / speed, 1, 2, 2, 1, 4});
    return p;
  };
  // 24 MB/s each: 4 flows share 4 x 24 / 40 = 2.4 NICs' worth (the lone flow's 40 MB/s is the
  // NIC's 44 MB/s in SimGrid's weights).
  const NetworkModel m = fit_network(kTwoLeaves, lone(40e6), with_both_ways(24e6));
  CHECK(m.uplink_bandwidth == Approx(1.5 * 44e6).epsilon(1e-12));
  CHECK(m.duplex_by_flows.empty());  // the NICs one flow each way: not the NIC duplex's point
  CHECK(m.pair_factor == 0);
  CHECK(m.uplink_duplex_factor == Approx(2.4).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::spine, 4 * kMiB, 0, 1, 2, 2, 1, 4}) ==
        Approx(50e-6 + 4 * kMiB / 24e6).epsilon(1e-12));
  // Two flows one way through the uplink (2 both ways together): the uplink's share, as before;
  // a lone flow its own time.
  CHECK(predict(m, {LinkClass::spine, 4 * kMiB, 0, 1, 2, 0, 0, 2}) ==
        Approx(50e-6 + 4 * kMiB / 30e6).epsilon(1e-12));
  CHECK(predict(m, {LinkClass::spine, kMiB, 0, 1, 1, 0, 0, 1}) ==
        Approx(50e-6 + kMiB / 40e6).epsilon(1e-12));
  // Within the tolerance of the split uplink (30 / 1.04 each): no such link.
  const NetworkModel near = fit_network(kTwoLeaves, lone(40e6), with_both_ways(30e6 / 1.04));
  CHECK(near.uplink_duplex_factor == 0);
  // Reports without the pattern: none.
  CHECK(fit_network(kTwoLeaves, lone(40e6), points(30e6)).uplink_duplex_factor == 0);
}
