#include "sim/route_topology.hpp"

#include <simgrid/s4u.hpp>
#include <string>

#include "algorithms/error.hpp"

namespace ddl::sim {

RouteTopology::RouteTopology(const Platform& platform)
    : platform_(platform),
      links_(static_cast<int>(simgrid::s4u::Engine::get_instance()->get_link_count())),
      routes_(static_cast<std::size_t>(platform.ranks()) *
              static_cast<std::size_t>(platform.ranks())) {}

int RouteTopology::ranks() const {
  return platform_.ranks();
}

int RouteTopology::link_count() const {
  return links_;
}

const std::vector<RouteLink>& RouteTopology::route(int src, int dst) const {
  auto& slot =
      routes_.at(static_cast<std::size_t>(src) * static_cast<std::size_t>(platform_.ranks()) +
                 static_cast<std::size_t>(dst));
  if (slot) return *slot;
  const simgrid::s4u::Host* a = platform_.gpus.at(static_cast<std::size_t>(src));
  const simgrid::s4u::Host* b = platform_.gpus.at(static_cast<std::size_t>(dst));
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  try {
    a->route_to(b, links, &latency);
  } catch (const std::exception& e) {
    throw InvalidArgument("platform file '" + platform_.file + "': no route from rank " +
                          std::to_string(src) + " (" + a->get_name() + ") to rank " +
                          std::to_string(dst) + " (" + b->get_name() + "): " + e.what());
  }
  std::vector<RouteLink> route;
  for (const simgrid::s4u::Link* l : links) {
    const auto [it, fresh] = ids_.try_emplace(l, static_cast<int>(ids_.size()));
    DDL_CHECK(it->second < links_, "more links in routes than in the engine");
    route.push_back({it->second, l->get_bandwidth(), l->get_latency(),
                     l->get_sharing_policy() != simgrid::s4u::Link::SharingPolicy::FATPIPE});
  }
  slot = std::make_unique<const std::vector<RouteLink>>(std::move(route));
  return *slot;
}

Topology::Alone RouteTopology::alone(int src, int dst, double bytes, double footprint) const {
  const Alone plain = Topology::alone(src, dst, bytes, footprint);
  const Platform::MessageFactors f = platform_.message_factors(src, dst);
  if (f.latency.empty() && f.bandwidth.empty() && footprint <= bytes) return plain;
  const double bottleneck = plain.transfer > 0 ? bytes / plain.transfer : 0;
  if (bottleneck == 0) return plain;
  const PieceTime t =
      piece_time(f.latency, f.bandwidth, bytes, footprint, plain.latency, bottleneck);
  return {t.latency, t.transfer};
}

void RouteTopology::prefetch() const {
  for (int a = 0; a < platform_.ranks(); ++a)
    for (int b = 0; b < platform_.ranks(); ++b)
      if (a != b) route(a, b);
}

}  // namespace ddl::sim
