#include "sim/platform_costs.hpp"

#include <algorithm>
#include <limits>
#include <simgrid/s4u.hpp>
#include <string>

#include "algorithms/error.hpp"

namespace ddl::sim {

RouteCost route_cost(const Platform& platform, int src_rank, int dst_rank) {
  std::vector<simgrid::s4u::Link*> links;
  RouteCost cost;
  cost.bandwidth = std::numeric_limits<double>::infinity();
  const simgrid::s4u::Host* src = platform.gpus.at(static_cast<std::size_t>(src_rank));
  const simgrid::s4u::Host* dst = platform.gpus.at(static_cast<std::size_t>(dst_rank));
  try {
    src->route_to(dst, links, &cost.latency);
  } catch (const std::exception& e) {
    throw InvalidArgument("platform file '" + platform.file + "': no route from rank " +
                          std::to_string(src_rank) + " (" + src->get_name() + ") to rank " +
                          std::to_string(dst_rank) + " (" + dst->get_name() + "): " + e.what());
  }
  for (const simgrid::s4u::Link* l : links)
    cost.bandwidth = std::min(cost.bandwidth, l->get_bandwidth());
  return cost;
}

namespace {

// Rank 0's switch at `level` (members 0 where it has none): the slowest member's routes.
SwitchCost switch_cost(const Platform& platform, int level) {
  SwitchCost cost;
  if (platform.switch_of.empty()) return cost;
  const int i = platform.switch_of[0][static_cast<std::size_t>(level)];
  if (i < 0) return cost;
  const SwitchDomain& d = platform.switches[static_cast<std::size_t>(i)];
  for (int r : d.members) {
    const simgrid::s4u::Host* gpu = platform.gpus[static_cast<std::size_t>(r)];
    const simgrid::s4u::Host* sw = d.host;
    for (const auto& [from, to] : {std::pair{gpu, sw}, std::pair{sw, gpu}}) {
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      from->route_to(to, links, &latency);
      double bandwidth = std::numeric_limits<double>::infinity();
      for (const simgrid::s4u::Link* l : links) bandwidth = std::min(bandwidth, l->get_bandwidth());
      cost.alpha = std::max(cost.alpha, latency);
      cost.beta = std::max(cost.beta, 1.0 / bandwidth);
    }
  }
  cost.reduce_beta = 1.0 / d.reduce_rate;
  cost.chunk_bytes = d.chunk_bytes;
  cost.members = static_cast<int>(d.members.size());
  return cost;
}

// A ring neighbour pair: its route and the factor tables of its messages' class.
struct NeighbourRoute {
  RouteCost cost;
  const FactorTable* latency_factors;
  const FactorTable* bandwidth_factors;
};

}  // namespace

CostParams platform_costs(const Platform& platform, const Dims& dims, double footprint) {
  CostParams params;
  // Per dimension, the routes between rank 0's group's ring neighbours along it.
  std::vector<std::vector<NeighbourRoute>> routes;
  for (int d = 0; d < dims.count(); ++d) {
    routes.emplace_back();
    const std::vector<int> group = dims.group(0, d);
    if (group.size() > 1)
      for (std::size_t i = 0; i < group.size(); ++i) {
        const int src = group[i], dst = group[(i + 1) % group.size()];
        const Platform::MessageFactors f = platform.message_factors(src, dst);
        routes.back().push_back({route_cost(platform, src, dst), &f.latency, &f.bandwidth});
      }
  }
  if (footprint > 0) {
    // A message of n bytes in one collective of `footprint` bytes, costed as the simulator does
    // (piece_time): the slowest neighbour pair sets the pace. `platform` outlives the params.
    params.message = [routes, footprint](int d, double bytes) {
      LinkCost worst;
      for (const NeighbourRoute& n : routes.at(static_cast<std::size_t>(d))) {
        const PieceTime t = piece_time(*n.latency_factors, *n.bandwidth_factors, bytes, footprint,
                                       n.cost.latency, n.cost.bandwidth);
        worst.alpha = std::max(worst.alpha, t.latency);
        worst.beta = std::max(worst.beta, bytes > 0 ? t.transfer / bytes : 0.0);
      }
      return worst;
    };
  }
  if (footprint > 0 && !platform.peer_read_factors.empty())
    params.peer_read = [&platform](int src, int dst, double bytes) {
      return peer_read_factor(platform, src, dst, bytes);
    };
  for (int d = 0; d < dims.count(); ++d) {
    const std::size_t members = static_cast<std::size_t>(dims.extent(d));
    LinkCost worst;
    if (footprint > 0 && members > 1) {
      worst = params.message(d, footprint / static_cast<double>(members));  // one ring block
    } else {
      for (const NeighbourRoute& n : routes[static_cast<std::size_t>(d)]) {
        worst.alpha = std::max(worst.alpha, n.cost.latency);
        worst.beta = std::max(worst.beta, 1.0 / n.cost.bandwidth);
      }
    }
    params.per_dim.push_back(worst);
  }
  for (int level = 0; level < kSwitchLevels; ++level)
    params.in_switch[static_cast<std::size_t>(level)] = switch_cost(platform, level);
  const double memory_factor = footprint > 0 ? factor_at(platform.memory_factors, footprint) : 1.0;
  params.gamma = 3.0 / (platform.memory_bandwidth.at(0) * memory_factor);
  return params;
}

}  // namespace ddl::sim
