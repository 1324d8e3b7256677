#include "algorithms/cost_model.hpp"

#include <string>
#include <vector>

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

// Chunks smaller than this are not weighed: below it the model's pipeline (chunks queueing at
// the busiest dimension, allreduce_ddl.cpp) misses the latencies a chunk waits out, by 10-20 %
// at 2 MiB on DGX clusters, within 10 % from 4 MiB (ddlsim --algo
// ddl:chunks=4,...,ddl:chunks=32 -b 64M -e 1G -f 4 on dgx_h100_4 and 16, dgx_a100_4).
constexpr std::size_t kSmallestChunk = std::size_t{4} << 20;

// What auto weighs of algorithm `a`: its name alone and, on a grid of nodes (two dimensions or
// more) where the caller left them at one, one channel per GPU of a node (ring) and its
// dimensions pipelined over chunks of at least kSmallestChunk (ddl): the fabrics of today's
// machines need both to reach their NICs' bandwidth, and the model prices each.
std::vector<std::string> variants(const Algorithm& a, const Dims& dims, std::size_t bytes,
                                  const Options& o) {
  std::vector<std::string> names = {a.name};
  if (dims.count() < 2) return names;
  if ((a.fields & kSpecChannels) && o.channels == 1 && dims.extent(0) > 1)
    names.push_back(a.name + ":channels=" + std::to_string(dims.extent(0)));
  if ((a.fields & kSpecChunks) && o.chunks == 1)
    for (int chunks : {4, 8, 16, 32})
      if (bytes / static_cast<std::size_t>(chunks) >= kSmallestChunk)
        names.push_back(a.name + ":chunks=" + std::to_string(chunks));
  return names;
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
    if (dims.rank_count() == 1 || bytes == 0) {
      if (best.empty()) best = a.name;
      continue;
    }
    for (const std::string& name : variants(a, dims, bytes, o)) {
      const double t = find_algorithm(name).cost(q);
      if (best.empty() || t < best_time * (1 - kTie)) {
        best = name;
        best_time = t;
      }
    }
  }
  return best;
}

std::string best_algorithm(Collective c, const Dims& dims, const CostParams& params,
                           std::size_t bytes, const Options& o, const Topology* topology) {
  if (c == Collective::allreduce) return best_allreduce(dims, params, bytes, o, topology);
  const CostQuery q = make_query(dims, params, bytes, o, topology);
  constexpr double kTie = 1e-9;  // as best_allreduce's
  std::string best;
  double best_time = 0;
  for (const Algorithm& a : algorithms()) {
    if (a.collective != c || a.picks_others) continue;
    const double t = dims.rank_count() == 1 || bytes == 0 ? 0 : a.cost(q);
    if (best.empty() || t < best_time * (1 - kTie)) {
      best = a.name;
      best_time = t;
    }
  }
  DDL_CHECK(!best.empty(), "best_algorithm: no algorithm for " + std::string(to_string(c)));
  return best;
}

CostParams auto_figures(Communicator& comm, const Dims& dims, const Options& options) {
  if (!options.cost.per_dim.empty()) return options.cost;
  CostParams costs = uniform_costs(dims);
  if (shares_memory_with_all(comm)) {
    const OneSided* shared = comm.one_sided();  // null only on one rank: no messages at all
    mark_shared_memory(costs, shared ? shared->eager_limit() : 0);
  }
  return costs;
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
