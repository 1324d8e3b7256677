#include "calibrate/network_model.hpp"

#include <algorithm>
#include <functional>
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

// Sets every class's route latency and bottleneck from the links' figures.
void set_routes(NetworkModel& m) {
  for (ClassFit& c : m.classes) {
    const bool spine = c.link_class == LinkClass::spine;
    c.route_latency = 2 * m.nic_latency + (spine ? 2 * m.uplink_latency : 0);
    c.bottleneck = spine ? std::min(m.nic_bandwidth, m.uplink_bandwidth) : m.nic_bandwidth;
  }
}

// Whether `p` is long enough to show a shared link's steady state: at least 1/8 of the largest
// size its class measured. Both ways at once, the emulated cluster's slowdown grows with the
// message (two pairs each way: 1.0x two flows one way to 32 KB, 1.4x at 256 KB, 1.7-1.9x from
// 512 KB; calibrate/README.md), a protocol's start-up that shorter transfers
// end before; the duplex and pair capacities are the long transfers' share, and the report's
// model error shows what they leave at the shorter sizes.
bool steady(const NetworkPoint& p, const std::vector<NetworkPoint>& points) {
  double largest = 0;
  for (const NetworkPoint& q : points)
    if (q.link_class == p.link_class) largest = std::max(largest, q.bytes);
  return 8 * p.bytes >= largest;
}

// A point measured with flows both ways through a NIC (what the duplex link is fitted to).
bool both_ways(const NetworkPoint& p) {
  return duplex_flows(p) > p.flows_per_nic;
}

// A point with flows both ways through an uplink (what leaf<j>-duplex is fitted to).
bool uplink_both_ways(const NetworkPoint& p) {
  return p.flows_per_uplink_duplex > p.flows_per_uplink;
}

int pair_flows(const NetworkPoint& p) {
  return std::max(p.flows_per_pair, 1);
}

// A point whose flows both ways through the NIC are all one pair's (nic_exchange): what a pair
// link is fitted to, when the duplex has points of its own.
bool exchange_only(const NetworkPoint& p) {
  return both_ways(p) && pair_flows(p) >= 2 && duplex_flows(p) == pair_flows(p);
}

// Each flow's share of the links other than pair<a>-<b> (as predict() computes it).
double share_without_pair(const NetworkModel& m, const NetworkPoint& p) {
  double share = m.nic_bandwidth / std::max(p.flows_per_nic, 1);
  if (p.flows_per_uplink > 0) share = std::min(share, m.uplink_bandwidth / p.flows_per_uplink);
  if (!m.duplex_by_flows.empty()) {
    const int n = duplex_flows(p);
    share = std::min(share, m.duplex_capacity(n) / n);
  }
  return share;
}

// The duplex factor with which `p`'s flows get the split links' share exactly: the duplex does
// not bind at or above it.
double split_factor(const NetworkModel& m, const NetworkPoint& p) {
  double share = m.nic_bandwidth / std::max(p.flows_per_nic, 1);
  if (p.flows_per_uplink > 0) share = std::min(share, m.uplink_bandwidth / p.flows_per_uplink);
  return duplex_flows(p) * share / m.nic_bandwidth;
}

// Whether the points measured both ways include some that are not one pair's exchange (with
// two ranks per node: nic_crossed, nic_bidirectional): then the duplex is fitted to those and the
// exchange to the pair link.
bool pairs_apart(const std::vector<NetworkPoint>& points) {
  return std::any_of(points.begin(), points.end(),
                     [](const NetworkPoint& p) { return both_ways(p) && !exchange_only(p); });
}

// The capacity factor (of the NIC's bandwidth, for `flows` flows sharing the link) that fits
// `points` best, `set` putting a candidate into a copy of `m`: least squares on relative time
// error over "not binding" (`split`) and each point's exact solution, in that order of
// preference on a tie, the solutions largest first and none below min(1, split).
template <typename Set>
double fit_factor(const NetworkModel& m, const std::vector<NetworkPoint>& points, int flows,
                  double split, Set&& set) {
  std::vector<double> candidates;
  for (const NetworkPoint& p : points) {
    const ClassFit& f = m.of(p.link_class);
    const Segment& s = segment_at(f.pingpong, p.bytes);
    const double q = p.bytes / (p.seconds - s.latency_s) / s.bandwidth();
    candidates.push_back(
        std::clamp(flows * q * f.bottleneck / m.nic_bandwidth, std::min(1.0, split), split));
  }
  std::sort(candidates.begin(), candidates.end(), std::greater<>());
  candidates.insert(candidates.begin(), split);
  double best_error = -1, best = split;
  for (double k : candidates) {
    NetworkModel trial = m;
    set(trial, k);
    const double e = squared_relative_error(trial, points);
    if (best_error < 0 || e < best_error * (1 - 1e-12)) best_error = e, best = k;
  }
  return best;
}

// n<i>-duplex by flow count (network_model.hpp), from the transfer-bound points measured both
// ways; the other links already fitted. Leaves duplex_by_flows empty when no count is slowed by
// more than kDuplexTolerance.
void fit_duplex(NetworkModel& m, const std::vector<NetworkPoint>& points) {
  m.duplex_by_flows.clear();
  const bool apart = pairs_apart(points);  // then the exchange is the pair link's
  struct Count {
    int flows = 0;
    std::vector<NetworkPoint> points;
  };
  std::vector<Count> counts;  // ascending
  for (const NetworkPoint& p : points) {
    const Segment& s = segment_at(m.of(p.link_class).pingpong, p.bytes);
    if (!both_ways(p) || !transfer_bound(s, p.bytes) || !(p.seconds > s.latency_s)) continue;
    if (!steady(p, points)) continue;
    if (uplink_both_ways(p)) continue;  // leaf<j>-duplex's (fit_uplink_duplex)
    if (apart && exchange_only(p)) continue;
    const int n = duplex_flows(p);
    auto at =
        std::find_if(counts.begin(), counts.end(), [n](const Count& c) { return c.flows >= n; });
    if (at == counts.end() || at->flows != n) at = counts.insert(at, Count{n, {}});
    at->points.push_back(p);
  }
  struct Fitted {
    int flows = 0;
    double factor = 0, split = 0;
  };
  std::vector<Fitted> fitted;
  bool slowed = false;
  for (const Count& c : counts) {
    // Not binding: the split's factor for every point of the count (the largest of them).
    double split = 0;
    for (const NetworkPoint& p : c.points) split = std::max(split, split_factor(m, p));
    // None below 1 (network_model.hpp).
    const double best = fit_factor(m, c.points, c.flows, split, [&](NetworkModel& trial, double k) {
      trial.duplex_by_flows = {{c.flows, k}};
    });
    // Within the tolerance of not binding: not binding.
    const bool slows = best * (1 + kDuplexTolerance) < split;
    fitted.push_back({c.flows, slows ? best : split, split});
    slowed = slowed || slows;
  }
  if (!slowed) return;
  // Below the smallest count measured both ways (one flow each way, when G > 1): from 2 flows
  // on, that count's slowdown against the split NIC, at least 1 (unmeasured; a lone flow is
  // below it and keeps the NIC's bandwidth).
  const Fitted& first = fitted.front();
  if (first.flows > 2)
    m.duplex_by_flows.push_back({2, std::max(1.0, 2 * first.factor / first.split)});
  for (const Fitted& f : fitted) m.duplex_by_flows.push_back({f.flows, f.factor});
}

// The points of `points` that `keep` selects and that show a shared link's steady state:
// transfer-bound, steady, and longer than their latency (what the pair link and the uplinks'
// duplex are fitted to).
std::vector<NetworkPoint> steady_points(const NetworkModel& m,
                                        const std::vector<NetworkPoint>& points,
                                        bool (*keep)(const NetworkPoint&)) {
  std::vector<NetworkPoint> kept;
  for (const NetworkPoint& p : points) {
    const Segment& s = segment_at(m.of(p.link_class).pingpong, p.bytes);
    if (keep(p) && steady(p, points) && transfer_bound(s, p.bytes) && p.seconds > s.latency_s)
      kept.push_back(p);
  }
  return kept;
}

// pair<a>-<b> (network_model.hpp) from the transfer-bound exchange points, the other links
// (duplex included) already fitted. Leaves pair_factor 0 when none slows them by more than
// kDuplexTolerance, or when the exchange was the duplex's own points.
void fit_pair(NetworkModel& m, const std::vector<NetworkPoint>& points) {
  m.pair_factor = 0;
  const std::vector<NetworkPoint> exchange = steady_points(m, points, exchange_only);
  if (!pairs_apart(points) || exchange.empty()) return;
  // Not binding: every flow keeps its share of the other links (the largest over the points).
  double split = 0;
  for (const NetworkPoint& p : exchange)
    split = std::max(split, pair_flows(p) * share_without_pair(m, p) / m.nic_bandwidth);
  const double best = fit_factor(m, exchange, pair_flows(exchange.front()), split,
                                 [](NetworkModel& trial, double k) { trial.pair_factor = k; });
  if (best * (1 + kDuplexTolerance) < split) m.pair_factor = best;
}

// leaf<j>-duplex (network_model.hpp) from the transfer-bound steady points with an uplink both
// ways, every other link already fitted. Leaves uplink_duplex_factor 0 when none slows them by
// more than kDuplexTolerance.
void fit_uplink_duplex(NetworkModel& m, const std::vector<NetworkPoint>& points) {
  m.uplink_duplex_factor = 0;
  const std::vector<NetworkPoint> both = steady_points(m, points, uplink_both_ways);
  if (both.empty()) return;
  // Not binding: every flow keeps its share of the other links (the largest over the points).
  double split = 0;
  for (const NetworkPoint& p : both) {
    double share = share_without_pair(m, p);
    if (m.pair_factor > 0) share = std::min(share, m.nic_bandwidth * m.pair_factor / pair_flows(p));
    split = std::max(split, p.flows_per_uplink_duplex * share / m.nic_bandwidth);
  }
  const double best =
      fit_factor(m, both, both.front().flows_per_uplink_duplex, split,
                 [](NetworkModel& trial, double k) { trial.uplink_duplex_factor = k; });
  if (best * (1 + kDuplexTolerance) < split) m.uplink_duplex_factor = best;
}

// Both ways at once: the duplex first, then the pair link given it, then the uplinks' duplex.
void fit_both_ways(NetworkModel& m, const std::vector<NetworkPoint>& points) {
  fit_duplex(m, points);
  fit_pair(m, points);
  fit_uplink_duplex(m, points);
}

}  // namespace

int duplex_flows(const NetworkPoint& p) {
  return p.flows_per_duplex > 0 ? p.flows_per_duplex : std::max(p.flows_per_nic, 1);
}

double NetworkModel::duplex_capacity(int flows) const {
  double factor = 1;
  for (const DuplexFactor& d : duplex_by_flows)
    if (d.flows <= flows) factor = d.factor;
  return nic_bandwidth * factor;
}

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
  if (!m.duplex_by_flows.empty()) {
    const int n = duplex_flows(p);
    share = std::min(share, m.duplex_capacity(n) / n);
  }
  if (m.pair_factor > 0) share = std::min(share, m.nic_bandwidth * m.pair_factor / pair_flows(p));
  if (m.uplink_duplex_factor > 0 && p.flows_per_uplink_duplex > 0)
    share = std::min(share, m.nic_bandwidth * m.uplink_duplex_factor / p.flows_per_uplink_duplex);
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
    if (uplink_point(p) && steady(p, points)) up.push_back(p);
  }
  m.nic_bandwidth =
      aggregate.empty() ? lone_flow_capacity(nic.pingpong, nic.largest_bytes) : median(aggregate);
  // One leaf switch, no uplinks (with rails every group has M leaves, joined by uplinks).
  if (t.leaf_switches() == 1) {
    set_routes(m);
    fit_both_ways(m, points);
    return m;
  }
  if (!leaf) {  // one node per leaf: NICs and uplinks carry the same flows
    m.uplink_bandwidth = m.nic_bandwidth;
    set_routes(m);
    fit_both_ways(m, points);
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
    const double e = squared_relative_error(trial, up);
    if (best_error < 0 || e < best_error * (1 - 1e-12)) best_error = e, best = c;
  }
  m.uplink_bandwidth = best;
  set_routes(m);
  fit_both_ways(m, points);
  return m;
}

}  // namespace ddl::calibrate
