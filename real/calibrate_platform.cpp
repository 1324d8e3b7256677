#include "real/calibrate_platform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "algorithms/error.hpp"

namespace ddl::calibrate {
namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

const Segment& segment_at(const std::vector<Segment>& segments, double bytes) {
  const Segment* s = &segments.front();
  for (const Segment& c : segments)
    if (static_cast<double>(c.from_bytes) <= bytes) s = &c;
  return *s;
}

// The least capacity under which a lone flow still keeps its fitted time: the range's own
// bandwidth, or, for a range that is flat in size (pure latency), the capacity whose transfer
// time adds at most 0.5 % to the fit at the range's largest size.
double lone_flow_capacity(const std::vector<Segment>& segments, double largest_bytes) {
  double need = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const double top = i + 1 < segments.size() ? static_cast<double>(segments[i + 1].from_bytes) : largest_bytes;
    const double fit = segments[i].latency_s + top * segments[i].seconds_per_byte;
    need = std::max(need, std::min(segments[i].bandwidth(), top / (0.005 * fit)));
  }
  return need;
}

double squared_error(const PlatformModel& m, const std::vector<ContendedPoint>& points) {
  double e = 0;
  for (const ContendedPoint& p : points) {
    const double r = (predict(m, p) - p.seconds) / p.seconds;
    e += r * r;
  }
  return e;
}

}  // namespace

double predict(const PlatformModel& m, const ContendedPoint& p) {
  const Segment& s = segment_at(m.pingpong, p.bytes);
  double rate = s.bandwidth();
  rate = std::min(rate, m.host_bandwidth / std::max(p.flows_per_host, 1));
  rate = std::min(rate, m.bus_bandwidth / std::max(p.flows, 1));
  return s.latency_s + p.bytes / rate;
}

PlatformModel model_from_pingpong(int ranks, const std::vector<Segment>& pingpong, double largest_bytes,
                                  double memory_bandwidth) {
  if (pingpong.empty()) throw InvalidArgument("calibration: no ping-pong fit");
  PlatformModel m;
  m.ranks = ranks;
  m.pingpong = pingpong;
  m.memory_bandwidth = memory_bandwidth;
  // The first range's latency is the route's; a zero (fitted) latency still needs a positive
  // reference for the factors, so 1 ns stands in and the factor carries the rest.
  m.route_latency = std::max(pingpong.front().latency_s, 1e-9);
  m.host_bandwidth = m.bus_bandwidth = lone_flow_capacity(pingpong, largest_bytes);
  return m;
}

void choose_capacities(PlatformModel& m, const std::vector<ContendedPoint>& points) {
  const double floor = std::min(m.host_bandwidth, m.bus_bandwidth);
  // Candidates: the capacity each point would imply if that resource alone limited it, and
  // "unlimited" (a thousand times the floor).
  std::vector<double> host{floor, 1000 * floor}, bus{floor, 1000 * floor};
  for (const ContendedPoint& p : points) {
    const double transfer = p.seconds - segment_at(m.pingpong, p.bytes).latency_s;
    if (transfer <= 0) continue;
    const double per_flow = p.bytes / transfer;
    if (per_flow * p.flows_per_host >= floor) host.push_back(per_flow * p.flows_per_host);
    if (per_flow * p.flows >= floor) bus.push_back(per_flow * p.flows);
  }
  PlatformModel best = m;
  best.host_bandwidth = best.bus_bandwidth = 1000 * floor;
  double best_error = points.empty() ? 0 : squared_error(best, points);
  for (double h : host)
    for (double b : bus) {
      PlatformModel trial = m;
      trial.host_bandwidth = h;
      trial.bus_bandwidth = b;
      const double e = squared_error(trial, points);
      if (e < best_error * (1 - 1e-12)) best_error = e, best = trial;
    }
  m.host_bandwidth = best.host_bandwidth;
  m.bus_bandwidth = best.bus_bandwidth;
}

std::string platform_xml(const PlatformModel& m, const std::vector<std::string>& notes) {
  if (m.ranks < 2) throw InvalidArgument("calibration: a platform needs at least 2 ranks");
  // SimGrid caps a flow at factor x the route's bottleneck capacity: factors are relative to it.
  const double bottleneck = std::min(m.host_bandwidth, m.bus_bandwidth);
  std::string lat, bw;
  for (const Segment& s : m.pingpong) {
    lat += (lat.empty() ? "" : ";") + std::to_string(s.from_bytes) + ":" + number(s.latency_s / m.route_latency);
    bw += (bw.empty() ? "" : ";") + std::to_string(s.from_bytes) + ":" + number(s.bandwidth() / bottleneck);
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    << "<!-- Written by ddlcalibrate from measurements on the machine it ran on; regenerate, do not edit. -->\n";
  for (const std::string& n : notes) x << "<!-- " << n << " -->\n";
  x << "<platform version=\"4.1\">\n  <zone id=\"calibrated\" routing=\"Full\">\n"
    << "    <prop id=\"ddl_dims\" value=\"" << m.ranks << "\"/>\n"
    << "    <prop id=\"ddl_gpus\" value=\"" << m.ranks << "\"/>\n"
    << "    <prop id=\"ddl_lat_factors\" value=\"" << lat << "\"/><!-- ping-pong fit: latency of each size range / route latency -->\n"
    << "    <prop id=\"ddl_bw_factors\" value=\"" << bw << "\"/><!-- ping-pong fit: bandwidth of each size range / route bottleneck -->\n";
  if (!m.memory_factors.empty())
    x << "    <prop id=\"ddl_memory_factors\" value=\"" << m.memory_factors
      << "\"/><!-- reduce throughput (all ranks) at each size / memory_bandwidth / 3 -->\n";
  for (int r = 0; r < m.ranks; ++r)
    x << "    <host id=\"gpu" << r << "\" speed=\"1Gf\"><prop id=\"ddl_rank\" value=\"" << r
      << "\"/><prop id=\"memory_bandwidth\" value=\"" << number(m.memory_bandwidth)
      << "\"/></host><!-- memory_bandwidth: measured reduce throughput x 3 -->\n";
  x << "    <router id=\"center\"/>\n";
  for (int r = 0; r < m.ranks; ++r)
    x << "    <link id=\"gpu" << r << "-link\" bandwidth=\"" << number(m.host_bandwidth) << "Bps\" latency=\""
      << number(m.route_latency / 2) << "s\" sharing_policy=\"SHARED\"/><!-- a rank's sends and receives share its core -->\n";
  x << "    <link id=\"bus\" bandwidth=\"" << number(m.bus_bandwidth)
    << "Bps\" latency=\"0s\" sharing_policy=\"SHARED\"/><!-- every transfer shares the machine's cores and memory -->\n";
  for (int a = 0; a < m.ranks; ++a)
    for (int b = 0; b < m.ranks; ++b)
      if (a != b)
        x << "    <route src=\"gpu" << a << "\" dst=\"gpu" << b << "\" symmetrical=\"NO\"><link_ctn id=\"gpu" << a
          << "-link\"/><link_ctn id=\"bus\"/><link_ctn id=\"gpu" << b << "-link\"/></route>\n";
  x << "  </zone>\n</platform>\n";
  return x.str();
}

}  // namespace ddl::calibrate
