#include "algorithms/cost_model.hpp"

#include <string>

#include "algorithms/error.hpp"
#include "algorithms/one_sided.hpp"

namespace ddl {

namespace {

CostQuery make_query(const Dims& dims, const CostParams& c, std::size_t bytes, const Options& o,
                     const Topology* topology) {
  if (c.per_dim.size() != static_cast<std::size_t>(dims.count()))
    throw InvalidArgument("cost model: " + std::to_string(c.per_dim.size()) +
                          " link classes for dims '" + dims.to_string() + "'");
  if (topology && topology->ranks() != dims.rank_count())
    throw InvalidArgument("cost model: a topology of " + std::to_string(topology->ranks()) +
                          " ranks for dims '" + dims.to_string() + "'");
  return CostQuery{dims, bytes, o, c, topology};
}

}  // namespace

double model_time(std::string_view name, const Dims& dims, const CostParams& c, std::size_t bytes,
                  const Options& o, const Topology* topology) {
  const Algorithm& algo = find_algorithm(name);  // throws naming the unknown name
  const CostQuery q = make_query(dims, c, bytes, o, topology);
  if (dims.rank_count() == 1 || bytes == 0) return 0;
  return algo.cost(q);
}

std::string best_allreduce(const Dims& dims, const CostParams& c, std::size_t bytes,
                           const Options& o, const Topology* topology) {
  const CostQuery q = make_query(dims, c, bytes, o, topology);
  bool shared = true;
  for (const LinkCost& link : c.per_dim) shared = shared && link.shared_memory;
  // A tie goes to the earlier entry of the table, also where two formulas of the same time
  // round apart (ring's two half-size steps against direct's one sum at p = 2).
  constexpr double kTie = 1e-9;
  std::string best;
  double best_time = 0;
  for (const Algorithm& a : algorithms()) {
    if (a.collective != Collective::allreduce || a.name == "auto") continue;
    if (a.needs_shared_memory && !shared) continue;
    const double t = dims.rank_count() == 1 || bytes == 0 ? 0 : a.cost(q);
    if (best.empty() || t < best_time * (1 - kTie)) {
      best = a.name;
      best_time = t;
    }
  }
  return best;
}

bool shares_memory_with_all(Communicator& comm) {
  const OneSided* shared = comm.one_sided();
  for (int peer = 0; peer < comm.size(); ++peer)
    if (peer != comm.rank() && !(shared && shared->shares_memory_with(peer))) return false;
  return true;
}

void mark_shared_memory(CostParams& params, std::size_t eager_limit) {
  for (LinkCost& link : params.per_dim) {
    link.shared_memory = true;
    link.rendezvous_bytes = eager_limit;
  }
}

CostParams uniform_costs(const Dims& dims) {
  CostParams c;
  c.per_dim.assign(static_cast<std::size_t>(dims.count()), LinkCost{1e-6, 1e-10});
  c.gamma = 1e-11;
  return c;
}

}  // namespace ddl
