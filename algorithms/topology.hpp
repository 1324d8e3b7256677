// The machine as the cost model sees it when it prices contention: for a message from rank a
// to rank b, the links it crosses, each with its bandwidth, latency and whether concurrent
// flows share it. A pure interface: the simulator implements it from its platform's routes
// (sim/route_topology.hpp), tests from hand-made link lists; no backend appears here.
#pragma once

#include <algorithm>
#include <vector>

namespace ddl {

struct RouteLink {
  int id = 0;            // 0 <= id < Topology::link_count(); one id per physical link direction
  double bandwidth = 0;  // B/s
  double latency = 0;    // s
  bool shared = true;    // concurrent flows split the bandwidth (false: each gets all of it)
};

class Topology {
 public:
  virtual ~Topology() = default;
  virtual int ranks() const = 0;
  virtual int link_count() const = 0;
  // The links of the route from `src` to `dst` (ranks, src != dst), in order. The reference
  // stays valid as long as the topology.
  virtual const std::vector<RouteLink>& route(int src, int dst) const = 0;

  // A message of `bytes` alone on its route, in a collective of `footprint` bytes: its latency
  // and its transfer time. Here the route's latency and bytes over its narrowest link; a
  // machine with per-size factors (a calibrated platform) overrides it.
  struct Alone {
    double latency = 0, transfer = 0;
  };
  virtual Alone alone(int src, int dst, double bytes, double footprint) const {
    (void)footprint;
    Alone a;
    double narrowest = 0;
    for (const RouteLink& l : route(src, dst)) {
      a.latency += l.latency;
      narrowest = narrowest == 0 ? l.bandwidth : std::min(narrowest, l.bandwidth);
    }
    a.transfer = narrowest > 0 ? bytes / narrowest : 0;
    return a;
  }
};

}  // namespace ddl
