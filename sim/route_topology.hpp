// The loaded platform as the cost model's Topology (algorithms/topology.hpp): a message from
// rank a to rank b crosses the links SimGrid routes it over (Host::route_to), each with its
// bandwidth, latency and whether flows share it (every policy but FATPIPE; a split-duplex
// link's two directions are separate links in the route, so they are counted apart). Routes
// are looked up once per ordered pair and kept. A message alone takes piece_time() with its
// pair's factor tables. Not modelled: a NONLINEAR link's capacity by flow count (such a link
// is priced at its nominal bandwidth, shared).
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "algorithms/topology.hpp"
#include "sim/platform.hpp"

namespace simgrid::s4u {
class Link;
}  // namespace simgrid::s4u

namespace ddl::sim {

class RouteTopology : public Topology {
 public:
  // `platform` must outlive the topology (it is read on each new pair).
  explicit RouteTopology(const Platform& platform);
  int ranks() const override;
  int link_count() const override;
  // Throws InvalidArgument naming both hosts when SimGrid finds no route.
  const std::vector<RouteLink>& route(int src, int dst) const override;
  // piece_time() with the pair's factor tables (Platform::message_factors): a calibrated
  // platform's per-size latency and bandwidth factors, as the simulator applies them.
  Alone alone(int src, int dst, double bytes, double footprint) const override;
  // Looks every pair up now: afterwards route() only reads, so threads may price at once.
  void prefetch() const;

 private:
  const Platform& platform_;
  int links_;  // every link of the engine: ids are dense below it
  mutable std::unordered_map<const simgrid::s4u::Link*, int> ids_;
  // Per ordered pair (src * ranks + dst), filled on first use: an index, not a hash, on the
  // pricing's hot path (ranks^2 pointers).
  mutable std::vector<std::unique_ptr<const std::vector<RouteLink>>> routes_;
};

}  // namespace ddl::sim
