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

CostParams platform_costs(const Platform& platform, const Dims& dims) {
  CostParams params;
  for (int d = 0; d < dims.count(); ++d) {
    LinkCost worst;
    const std::vector<int> group = dims.group(0, d);
    if (group.size() > 1)
      for (std::size_t i = 0; i < group.size(); ++i) {
        const RouteCost c = route_cost(platform, group[i], group[(i + 1) % group.size()]);
        worst.alpha = std::max(worst.alpha, c.latency);
        worst.beta = std::max(worst.beta, 1.0 / c.bandwidth);
      }
    params.per_dim.push_back(worst);
  }
  params.gamma = 3.0 / platform.memory_bandwidth.at(0);
  return params;
}

}  // namespace ddl::sim
