#include "calibrate/platform_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "algorithms/error.hpp"

namespace ddl::calibrate {

namespace {

// A bus k times the reference, within what the simulator accepts: the "unlimited" bus (k = 1000)
// of a fast host link (a flat range's R can reach TB/s) would otherwise be refused on loading.
double bus_of(double k, double reference) {
  return std::min(k * reference, kLargestBandwidth);
}

}  // namespace

double lone_flow_capacity(const std::vector<Segment>& segments, double largest_bytes) {
  double need = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const double top =
        i + 1 < segments.size() ? static_cast<double>(segments[i + 1].from_bytes) : largest_bytes;
    const double fit = segments[i].latency_s + top * segments[i].seconds_per_byte;
    need = std::max(need, std::min(segments[i].bandwidth(), top / (0.005 * fit)));
  }
  return std::min(need, kLargestBandwidth);
}

double bus_capacity(const PlatformModel& m, int flows) {
  double capacity = m.bus_bandwidth;
  for (const FlowCapacity& c : m.bus_by_flows)
    if (c.flows <= flows) capacity = c.bandwidth;
  return capacity;
}

double predict(const PlatformModel& m, const ContendedPoint& p) {
  // Each flow's share of a link is capacity / flows (one size, one factor); its speed is the
  // lone speed scaled by the tightest share relative to the reference capacity R.
  const Segment& s = segment_at(m.pingpong, p.bytes);
  const double reference = std::min(m.host_bandwidth, m.bus_bandwidth);
  const int flows = std::max(p.flows, 1);
  const double share =
      std::min(m.host_bandwidth / std::max(p.flows_per_host, 1), bus_capacity(m, flows) / flows);
  return s.latency_s + p.bytes / (s.bandwidth() * std::min(1.0, share / reference));
}

PlatformModel model_from_pingpong(int ranks, const std::vector<Segment>& pingpong,
                                  double largest_bytes, double memory_bandwidth) {
  if (pingpong.empty()) throw InvalidArgument("calibration: no ping-pong fit");
  PlatformModel m;
  m.ranks = ranks;
  m.pingpong = pingpong;
  m.memory_bandwidth = memory_bandwidth;
  // The first range's latency is the route's; a zero (fitted) latency still needs a positive
  // reference for the factors, so 1 ns stands in and the factor carries the rest.
  m.route_latency = std::max(pingpong.front().latency_s, 1e-9);
  // R at least the fastest lone flow keeps every bandwidth factor <= 1.
  m.host_bandwidth = lone_flow_capacity(pingpong, largest_bytes);
  m.bus_bandwidth = bus_of(1000, m.host_bandwidth);
  return m;
}

void choose_capacities(PlatformModel& m, const std::vector<ContendedPoint>& points) {
  const double reference = m.host_bandwidth;
  // Only points whose lone time is mostly transfer say anything about capacity: a latency-bound
  // exchange that is slow under contention is slow for reasons (scheduling, polling) that no
  // capacity represents, and fitting k to it would slow every large transfer instead.
  std::vector<ContendedPoint> bound;
  for (const ContendedPoint& p : points) {
    const Segment& s = segment_at(m.pingpong, p.bytes);
    if (p.bytes * s.seconds_per_byte >= s.latency_s) bound.push_back(p);
  }
  // Candidates: the k at which each point's measured speed is what the model predicts, if the
  // bus limits it (k = flows x measured / lone speed), and "unlimited".
  std::vector<double> ks{1000};
  std::vector<int> counts;
  for (const ContendedPoint& p : bound) {
    if (std::find(counts.begin(), counts.end(), p.flows) == counts.end()) counts.push_back(p.flows);
    const Segment& s = segment_at(m.pingpong, p.bytes);
    const double transfer = p.seconds - s.latency_s;
    if (transfer <= 0) continue;
    ks.push_back(std::max(1.0, p.flows * (p.bytes / transfer) / s.bandwidth()));
  }
  std::sort(counts.begin(), counts.end());
  // Each point crosses the bus with its own count of flows, so each count's k is fitted alone.
  m.bus_by_flows.clear();
  m.bus_bandwidth = bus_of(1000, reference);
  for (int flows : counts) {
    std::vector<ContendedPoint> same;
    for (const ContendedPoint& p : bound)
      if (p.flows == flows) same.push_back(p);
    double best_k = 1000, best_error = -1;
    for (double k : ks) {
      PlatformModel trial = m;
      trial.bus_by_flows.clear();
      trial.bus_bandwidth = bus_of(k, reference);
      const double e = squared_relative_error(trial, same);
      if (best_error < 0 || e < best_error * (1 - 1e-12)) best_error = e, best_k = k;
    }
    m.bus_by_flows.push_back({flows, bus_of(best_k, reference)});
  }
  if (!m.bus_by_flows.empty())
    m.bus_bandwidth =
        std::max_element(m.bus_by_flows.begin(), m.bus_by_flows.end(),
                         [](const auto& a, const auto& b) { return a.bandwidth < b.bandwidth; })
            ->bandwidth;
}

}  // namespace ddl::calibrate
