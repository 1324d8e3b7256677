// The links between nodes of a calibrated multi-level platform, fitted from measurements.
//
// Links (the names platforms/generate.py gives the nominal platform of the same cluster):
// every node's NIC n<i>-nic and every leaf's uplink leaf<j>-up are split-duplex (a tbf shapes
// each direction on its own; a switch forwards both at once). A leaf message crosses
// n<a>-nic UP and n<b>-nic DOWN, a spine message n<a>-nic UP, leaf<x>-up UP, leaf<y>-up DOWN
// and n<b>-nic DOWN. The two classes' ping-pong fits become their own per-size factors
// (ddl_leaf_* / ddl_spine_*), relative to their routes: a lone message takes its fitted time.
//
// Contention: SimGrid applies a bandwidth factor as a weight (calibrate/platform_model.hpp), so
// flows of one class and size that share a link get its capacity's share relative to their
// route's bottleneck. With n flows through a NIC and nothing else shared, each gets 1/n of a
// lone flow's speed whatever the NIC's capacity; the capacity matters where classes mix (a leaf
// and a spine flow on one NIC) and as the uplink's reference. So:
//   - the NIC's capacity is what G flows through one of its directions move in all (the
//     transfer-bound sizes of nic_one_way and nic_bidirectional, median): its absolute rate
//     for those flows, which each lone flow's factor is relative to. With rails (M NICs per
//     node, Topology::nics) those patterns put G / M flows through each NIC, and every NIC
//     n<i>-nic<k> gets the capacity so fitted;
//   - the uplink's is fitted to the uplink pattern (K flows, one per NIC, through the same
//     uplink; with rails in one group, rail 0 to rail 1): a capacity below K NICs' slows each flow
//     to its share, which no NIC does. A lone spine flow slower than a lone leaf one means the
//     uplink limits even one flow: then its capacity is the NIC's times that ratio, which also
//     gives K flows 1/K each; the fit takes that figure when it explains the pattern as well as any
//     (so mixed traffic sees the uplink's real rate). With one node per leaf every spine flow
//     crosses its NICs and uplinks alike, and the uplink gets the NIC's capacity.
//
// Both directions at once. The split-duplex NIC is right for one direction (two flows one way
// share it as measured), but on the emulated cluster a NIC carrying traffic both ways is slower
// than that: one flow each way took 1.6x a lone flow at 4 MB (raw TCP both ways costs 10-20 %;
// the rest is Open MPI's rendezvous, whose clear-to-send waits behind the reverse direction's
// queued data). So each node may also have n<i>-duplex: a SHARED link (both directions share
// it), latency 0, bandwidth the NIC's, that every route between nodes crosses next to its NICs,
// with a capacity by flow count (ddl_capacity_by_flows): with n flows crossing it, NIC x
// duplex_factor(n). Per count of flows through the busiest NIC in both directions together, the
// factor is fitted to the transfer-bound points of the patterns measured both ways
// (nic_bidirectional: 2G flows), least squares on relative time error over the factor each point
// implies alone and "not binding" (the split NIC's share), the larger on a tie. The rules:
//   - a lone flow is below the first count: the NIC's bandwidth, its time unchanged;
//   - a count is written only when its factor slows flows by more than kDuplexTolerance against
//     the split NIC; no count written, no duplex link (the file as before);
//   - factors are at least 1 (C(n) >= NIC): n flows one way then always get at least the split
//     NIC's share NIC / n, so one-way patterns keep their fit. A both-ways slowdown beyond 2x
//     (n/2 each way) would need less; the fit keeps one-way traffic right instead and leaves
//     the both-ways points that residual (the report's model error shows it);
//   - a count above a written one whose points show no slowdown gets the split's own factor, so
//     the step does not carry the smaller count's slowdown up to it;
//   - below the smallest count measured both ways, when one flow each way (nic_crossed, a ring
//     step across nodes) was not measured (reports from before it), the file says from 2 flows
//     on what that count says: the same slowdown against the split NIC, at least 1. Otherwise
//     the step's "factor 1 below the first count" would give one flow each way half the
//     split's share;
//   - only the steady state counts: transfer-bound points of at least 1/8 of the class's largest
//     size (the slowdown both ways grows with the message on the emulated cluster: 1.0x up to
//     32 KB, 1.4x at 256 KB, 1.7-1.9x from 512 KB for two pairs each way; calibrate/README.md).
//
// One pair of ranks both ways. A message and its reverse between the same two ranks (one Open
// MPI TCP connection) can share the way more than pairs crossing a NIC both ways do: with Open
// MPI's 64 KB eager limit each side's rendezvous reply waits behind the other's data in that
// connection, half duplex at some sizes and launches (ddlcluster now raises the limit, and
// there the exchange runs full duplex; cluster/README.md). With nic_crossed and nic_exchange
// measured, the duplex counts come from every both-ways pattern but the exchange, and the exchange
// alone fits a SHARED link pair<a>-<b> per pair of ranks on different nodes, crossed by both
// directions of that pair, capacity NIC x pair_factor: least squares as for the duplex, at least 1
// (a pair then never gets less than half the NIC each way, so it never binds where the NIC's own
// direction splits by 2), written only when it slows the exchange by more than kDuplexTolerance.
// Reports without these patterns (or one rank per node, where a pair both ways is the NIC both
// ways) fit the duplex as above and no pair link.
//
// An uplink both ways. Flows between leaves (or rails) both ways at once cross the uplinks both
// ways too, and there the emulated cluster is slower again than the split uplink and the NIC
// duplex say: on 2 nodes x 2 ranks x 2 rails at 500 Mbit/s, 8 MB, two flows each way through
// each uplink (and one each way through each NIC) took 1.07-1.27x the two flows one way
// (calibrate/README.md), where the split links and the NIC duplex give 1.0x (why is not traced:
// calibrate/README.md has what the probe separates). So each leaf may also have
// leaf<j>-duplex: a SHARED link (latency 0)
// that every route between leaves crosses next to its uplinks, capacity NIC x
// uplink_duplex_factor, fitted as the pair link is (least squares on relative time error, at
// least 1, written only when it slows by more than kDuplexTolerance) to the transfer-bound
// steady points of uplink_bidirectional (K flows each way through each uplink), the other links
// already fitted. A factor of at least 1 never binds a lone flow, and with K flows one way it
// binds only where the uplink would give each more than NIC x factor / K. Reports without that
// pattern have no such link (the file as before).
#pragma once

#include <vector>

#include "calibrate/fit.hpp"
#include "calibrate/topology.hpp"

namespace ddl::calibrate {

// One class between nodes: its lone-flow fit and its route.
struct ClassFit {
  LinkClass link_class = LinkClass::leaf;
  std::vector<Segment> pingpong;
  double route_latency = 0;  // s: the sum of its links' latencies
  double bottleneck = 0;     // B/s: the least capacity on its route (factors are relative to it)
};

// From `flows` flows crossing n<i>-duplex (both directions together) on: its capacity is the
// NIC's bandwidth x `factor`.
struct DuplexFactor {
  int flows = 0;
  double factor = 1;
  bool operator==(const DuplexFactor&) const = default;
};

// A count is written when its fitted factor slows flows by more than this against the split NIC.
inline constexpr double kDuplexTolerance = 0.05;

struct NetworkModel {
  Topology topology;
  double nic_bandwidth = 0, nic_latency = 0;        // each direction of each n<i>-nic
  double uplink_bandwidth = 0, uplink_latency = 0;  // each direction of each leaf<j>-up
  // n<i>-duplex by flow count, ascending (below the first count: factor 1); empty: no such link.
  std::vector<DuplexFactor> duplex_by_flows;
  // pair<a>-<b>'s capacity / the NIC's bandwidth; 0: no pair links.
  double pair_factor = 0;
  // leaf<j>-duplex's capacity / the NIC's bandwidth; 0: no such links.
  double uplink_duplex_factor = 0;
  std::vector<ClassFit> classes;          // leaf and/or spine, in that order
  const ClassFit& of(LinkClass c) const;  // InvalidArgument when not measured
  // The capacity of n<i>-duplex with `flows` crossing it (the NIC's bandwidth without one).
  double duplex_capacity(int flows) const;
};

// A measured per-flow time of a pattern between nodes, at one size.
struct NetworkPoint {
  LinkClass link_class = LinkClass::leaf;
  double bytes = 0;
  double seconds = 0;
  int flows_per_nic = 1;     // flows through one direction of the busiest NIC
  int flows_per_uplink = 0;  // flows through one direction of the busiest uplink (0: none)
  // Flows through the busiest NIC in both directions together (what n<i>-duplex counts);
  // 0: flows_per_nic, all one way.
  int flows_per_duplex = 0;
  // The most flows between one pair of ranks on different nodes, both directions (what
  // pair<a>-<b> counts); 0: 1.
  int flows_per_pair = 0;
  // The most flows through one leaf's uplink, both directions together (what leaf<j>-duplex
  // counts); 0: none both ways (flows_per_uplink, one way).
  int flows_per_uplink_duplex = 0;
};

// The flows of `point` through the busiest NIC, both directions together.
int duplex_flows(const NetworkPoint& point);

// The simulated per-flow time of `point` on `model`, as CM02 computes it.
double predict(const NetworkModel& model, const NetworkPoint& point);

// The lone-flow fits of the classes between nodes (leaf and/or spine, as `topology` has them),
// the largest size each was measured at and the medians it was fitted to.
struct ClassPingpong {
  LinkClass link_class = LinkClass::leaf;
  std::vector<Segment> pingpong;
  double largest_bytes = 0;
  std::vector<Point> medians;  // may be empty (then the first range's latency stands for it)
};

// The one-way latency of a class's route: the median of the ping-pong medians at the sizes its
// fit calls latency-bound (transfer below latency). Over TCP one small size now and then takes
// several times the others (8 B: 172 us between 19-25 us at 16 B-1 KB on the emulated cluster),
// and a lone point is a range of its own in the fit, so the first range's latency would be a
// draw; without medians, it is that latency.
double route_latency_of(const ClassPingpong& lone);

// Latencies from route_latency_of (the NIC half the leaf route's, the uplink half of what the
// spine route adds), capacities and duplex factors as the header says. Throws InvalidArgument when
// a class of `topology` between nodes has no fit.
NetworkModel fit_network(const Topology& topology, const std::vector<ClassPingpong>& lone,
                         const std::vector<NetworkPoint>& points);

}  // namespace ddl::calibrate
