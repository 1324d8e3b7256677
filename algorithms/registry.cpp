#include "algorithms/registry.hpp"

#include "algorithms/collectives.hpp"
#include "algorithms/error.hpp"

namespace ddl {

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::allgather: return "allgather";
    case Collective::broadcast: return "broadcast";
  }
  return "?";
}

const std::vector<Algorithm>& algorithms() {
  static const std::vector<Algorithm> table = {
      {"ring", Collective::allreduce, allreduce_ring,
       "ring reduce-scatter + allgather over all ranks (bandwidth-optimal)"},
      {"ddl", Collective::allreduce, allreduce_ddl,
       "multi-dimensional, multi-ring: reduce-scatter along dims 1..k, allgather k..1"},
      {"rhd", Collective::allreduce, allreduce_rhd,
       "Rabenseifner recursive halving-doubling (any rank count)"},
      {"dbtree", Collective::allreduce, allreduce_dbtree,
       "pipelined double binary tree, each tree carrying half"},
      {"hier", Collective::allreduce, allreduce_hier,
       "Horovod-style: reduce in node, ring among leaders, broadcast in node"},
      {"auto", Collective::allreduce, allreduce_auto,
       "argmin of the analytical cost model over the algorithms above"},
      {"reduce_scatter", Collective::reduce_scatter, reduce_scatter_ring, "ring reduce-scatter"},
      {"allgather", Collective::allgather, allgather_ring, "ring allgather"},
      {"broadcast_chain", Collective::broadcast, broadcast_chain, "pipelined chain broadcast"},
      {"broadcast_binomial", Collective::broadcast, broadcast_binomial, "binomial-tree broadcast"},
  };
  return table;
}

const Algorithm& find_algorithm(std::string_view name) {
  std::string known;
  for (const Algorithm& a : algorithms()) {
    if (a.name == name) return a;
    known += (known.empty() ? "" : ", ") + a.name;
  }
  throw InvalidArgument("unknown algorithm '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> algorithm_names(Collective c) {
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms())
    if (a.collective == c) names.push_back(a.name);
  return names;
}

Dims effective_dims(const Options& opts, int world) {
  if (opts.dims.empty()) return Dims::flat(world);
  opts.dims.require_world(world);
  return opts.dims;
}

double bus_factor(Collective c, int ranks) {
  const double p = ranks;
  switch (c) {
    case Collective::allreduce: return 2.0 * (p - 1) / p;
    case Collective::reduce_scatter:
    case Collective::allgather: return (p - 1) / p;
    case Collective::broadcast: return 1.0;
  }
  return 1.0;
}

}  // namespace ddl
