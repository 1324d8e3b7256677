#include "calibrate/network_model.hpp"

#include <algorithm>
#include <string>

#include "algorithms/error.hpp"
#include "calibrate/platform_model.hpp"

namespace ddl::calibrate {
namespace {

// A point says something about capacity only where its lone time is mostly transfer (as for
// the bus: calibrate/platform_model.hpp).
bool transfer_bound(const Segment& s, double bytes) {
  return bytes * s.seconds_per_byte >= s.latency_s;
}

bool nic_point(const NetworkPoint& p) {
  return p.flows_per_nic >= 2 && p.flows_per_nic >= p.flows_per_uplink;
}
bool uplink_point(const NetworkPoint& p) {
  return p.flows_per_uplink > p.flows_per_nic;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const ClassPingpong* find(const std::vector<ClassPingpong>& lone, LinkClass c) {
  for (const ClassPingpong& l : lone)
    if (l.link_class == c) return &l;
  return nullptr;
}

double squared_error(const NetworkModel& m, const std::vector<NetworkPoint>& points) {
  double e = 0;
  for (const NetworkPoint& p : points) {
    const double r = (predict(m, p) - p.seconds) / p.seconds;
    e += r * r;
  }
  return e;
}

// Sets every class's route latency and bottleneck from the links' figures.
void set_routes(NetworkModel& m) {
  for (ClassFit& c : m.classes) {
    const bool spine = c.link_class == LinkClass::spine;
    c.route_latency = 2 * m.nic_latency + (spine ? 2 * m.uplink_latency : 0);
    c.bottleneck = spine ? std::min(m.nic_bandwidth, m.uplink_bandwidth) : m.nic_bandwidth;
  }
}

}  // namespace

const ClassFit& NetworkModel::of(LinkClass c) const {
  for (const ClassFit& f : classes)
    if (f.link_class == c) return f;
  throw InvalidArgument(std::string("calibration: the ") + to_string(c) +
                        " class was not measured");
}

double route_latency_of(const ClassPingpong& lone) {
  std::vector<double> small;
  for (const Point& p : lone.medians)
    if (!transfer_bound(segment_at(lone.pingpong, p.bytes), p.bytes)) small.push_back(p.seconds);
  return small.empty() ? lone.pingpong.front().latency_s : median(small);
}

double predict(const NetworkModel& m, const NetworkPoint& p) {
  const ClassFit& c = m.of(p.link_class);
  const Segment& s = segment_at(c.pingpong, p.bytes);
  double share = m.nic_bandwidth / std::max(p.flows_per_nic, 1);
  if (p.flows_per_uplink > 0) share = std::min(share, m.uplink_bandwidth / p.flows_per_uplink);
  return s.latency_s + p.bytes / (s.bandwidth() * std::min(1.0, share / c.bottleneck));
}

NetworkModel fit_network(const Topology& t, const std::vector<ClassPingpong>& lone,
                         const std::vector<NetworkPoint>& points) {
  NetworkModel m;
  m.topology = t;
  for (LinkClass c : t.classes()) {
    if (c == LinkClass::node) continue;
    const ClassPingpong* l = find(lone, c);
    if (l == nullptr || l->pingpong.empty())
      throw InvalidArgument(std::string("calibration: no ping-pong fit of the ") + to_string(c) +
                            " class");
    m.classes.push_back({c, l->pingpong, 0, 0});
  }
  if (m.classes.empty()) throw InvalidArgument("calibration: a network model needs 2 nodes");
  // The NIC's class: node 0 to node 1 (spine when every leaf holds one node).
  const ClassPingpong& nic = *find(lone, m.classes.front().link_class);
  const ClassPingpong* leaf = find(lone, LinkClass::leaf);
  const ClassPingpong* spine = find(lone, LinkClass::spine);
  // A zero fitted latency still needs a positive route latency for the factors to refer to.
  m.nic_latency = std::max(route_latency_of(nic) / 2, 0.5e-9);
  if (leaf && spine)
    m.uplink_latency = std::max(0.0, (route_latency_of(*spine) - route_latency_of(*leaf)) / 2);

  std::vector<double> aggregate;
  std::vector<NetworkPoint> up;
  for (const NetworkPoint& p : points) {
    const Segment& s = segment_at(m.of(p.link_class).pingpong, p.bytes);
    if (!transfer_bound(s, p.bytes) || !(p.seconds > s.latency_s)) continue;
    if (nic_point(p)) aggregate.push_back(p.flows_per_nic * p.bytes / (p.seconds - s.latency_s));
    if (uplink_point(p)) up.push_back(p);
  }
  m.nic_bandwidth =
      aggregate.empty() ? lone_flow_capacity(nic.pingpong, nic.largest_bytes) : median(aggregate);
  if (t.leaves == 1) {
    set_routes(m);
    return m;
  }
  if (!leaf) {  // one node per leaf: NICs and uplinks carry the same flows
    m.uplink_bandwidth = m.nic_bandwidth;
    set_routes(m);
    return m;
  }
  // Candidates, in order of preference on a tie: the ratio of a lone spine flow's speed to a
  // lone leaf flow's when below 1, each point's exact solution, and K NICs' worth.
  std::vector<double> candidates;
  const double at = std::min(leaf->largest_bytes, spine->largest_bytes);
  const double ratio =
      segment_at(spine->pingpong, at).bandwidth() / segment_at(leaf->pingpong, at).bandwidth();
  if (ratio < 1) candidates.push_back(ratio * m.nic_bandwidth);
  for (const NetworkPoint& p : up) {
    const Segment& s = segment_at(spine->pingpong, p.bytes);
    const double q = p.bytes / (p.seconds - s.latency_s) / s.bandwidth();
    candidates.push_back(std::max(q, 1e-6) * p.flows_per_uplink * m.nic_bandwidth);
  }
  candidates.push_back(t.nodes_per_leaf * m.nic_bandwidth);
  double best_error = -1;
  double best = candidates.back();
  for (double c : candidates) {
    NetworkModel trial = m;
    trial.uplink_bandwidth = c;
    set_routes(trial);
    const double e = squared_error(trial, up);
    if (best_error < 0 || e < best_error * (1 - 1e-12)) best_error = e, best = c;
  }
  m.uplink_bandwidth = best;
  set_routes(m);
  return m;
}

}  // namespace ddl::calibrate
