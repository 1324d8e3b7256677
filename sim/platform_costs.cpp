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
    throw InvalidArgument("platform file '" + platform.file + "': no route from rank " + std::to_string(src_rank) +
                          " (" + src->get_name() + ") to rank " + std::to_string(dst_rank) + " (" + dst->get_name() +
                          "): " + e.what());
  }
  for (const simgrid::s4u::Link* l : links) cost.bandwidth = std::min(cost.bandwidth, l->get_bandwidth());
  return cost;
}

CostParams platform_costs(const Platform& platform, const Dims& dims, double footprint) {
  CostParams params;
  for (int d = 0; d < dims.count(); ++d) {
    LinkCost worst;
    const std::vector<int> group = dims.group(0, d);
    if (group.size() > 1)
      for (std::size_t i = 0; i < group.size(); ++i) {
        const RouteCost c = route_cost(platform, group[i], group[(i + 1) % group.size()]);
        if (footprint > 0) {
          // One ring block of the footprint along this dimension, costed as the simulator does.
          const double block = footprint / static_cast<double>(group.size());
          const PieceTime t = piece_time(platform.latency_factors, platform.bandwidth_factors, block, footprint,
                                         c.latency, c.bandwidth);
          worst.alpha = std::max(worst.alpha, t.latency);
          worst.beta = std::max(worst.beta, t.transfer / block);
        } else {
          worst.alpha = std::max(worst.alpha, c.latency);
          worst.beta = std::max(worst.beta, 1.0 / c.bandwidth);
        }
      }
    params.per_dim.push_back(worst);
  }
  const double memory_factor = footprint > 0 ? factor_at(platform.memory_factors, footprint) : 1.0;
  params.gamma = 3.0 / (platform.memory_bandwidth.at(0) * memory_factor);
  return params;
}

}  // namespace ddl::sim
