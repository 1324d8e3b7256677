// auto: the allreduce whose analytical cost (cost_model.hpp) is least for this grid, these
// link costs and this size. Every rank evaluates the same pure function on the same inputs,
// so all ranks pick the same algorithm without communicating. With a plan (Options::plan,
// plan.hpp) the plan's algorithm string for the size is run instead. Without machine figures
// (Options::cost empty) the choice is made for a uniform network: every dimension 1 us and
// 10 GB/s, reduction at 100 GB/s — which then depends only on p, the grid and S.
//
// Cost: that of the chosen algorithm (the plan's, with a plan).
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "algorithms/collectives.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

namespace {

// best_allreduce, remembered: every rank asks the same question (and a training run asks it
// per bucket), and pricing builds every rank's schedules. Only plain figures are remembered:
// with per-size or peer-read callbacks the figures are not all in the key.
std::string choose(const Dims& dims, const CostParams& c, std::size_t bytes, const Options& o) {
  if (c.message || c.peer_read) return best_allreduce(dims, c, bytes, o);
  std::ostringstream key;
  key.precision(17);
  key << dims.to_string() << '|' << bytes << '|' << o.rings << '|' << o.segment_bytes << '|'
      << static_cast<int>(o.hd_order) << '|' << c.gamma;
  for (IntraMethod m : o.methods) key << '|' << static_cast<int>(m);
  for (const LinkCost& l : c.per_dim) key << '|' << l.alpha << ',' << l.beta;
  static std::mutex lock;
  static std::unordered_map<std::string, std::string> chosen;
  {
    const std::lock_guard<std::mutex> guard(lock);
    if (const auto it = chosen.find(key.str()); it != chosen.end()) return it->second;
  }
  const std::string best = best_allreduce(dims, c, bytes, o);
  const std::lock_guard<std::mutex> guard(lock);
  chosen.emplace(key.str(), best);
  return best;
}

}  // namespace

void allreduce_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  element_count(buf, type);
  if (opts.plan) {
    if (opts.plan->ranks != comm.size())
      throw InvalidArgument("auto: the plan is for " + std::to_string(opts.plan->ranks) +
                            " ranks, this run has " + std::to_string(comm.size()));
    Options inner = opts;
    inner.plan.reset();
    find_algorithm(opts.plan->entry_for(buf.bytes).algorithm).run(comm, buf, type, op, inner);
    return;
  }
  const Dims dims = effective_dims(opts, comm.size());
  const CostParams costs = opts.cost.per_dim.empty() ? uniform_costs(dims) : opts.cost;
  find_algorithm(choose(dims, costs, buf.bytes, opts)).run(comm, buf, type, op, opts);
}

double allreduce_auto_cost(const CostQuery& q) {
  if (q.options.plan) {
    Options inner = q.options;
    inner.plan.reset();
    return find_algorithm(q.options.plan->entry_for(q.bytes).algorithm)
        .cost(CostQuery{q.dims, q.bytes, inner, q.params, q.topology});
  }
  return q.bytes == 0 || q.dims.rank_count() == 1
             ? 0
             : find_algorithm(best_allreduce(q.dims, q.params, q.bytes, q.options, q.topology))
                   .cost(q);
}

}  // namespace ddl
