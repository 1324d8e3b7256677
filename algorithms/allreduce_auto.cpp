// auto: the allreduce whose analytical cost (cost_model.hpp) is least for this grid, these
// link costs and this size. Every rank evaluates the same pure function on the same inputs,
// so all ranks pick the same algorithm without communicating. With a plan (Options::plan,
// plan.hpp) the plan's algorithm string for the size is run instead. Without machine figures
// (Options::cost empty) the choice is made for a uniform network: every dimension 1 us and
// 10 GB/s, reduction at 100 GB/s — which then depends only on p, the grid and S — and where
// this rank shares memory with every other (one node), marked so (`direct` is then a candidate),
// with the messages the transport sends by rendezvous one α dearer (OneSided::eager_limit, the
// same on every rank). Given figures say it themselves (LinkCost::shared_memory).
//
// Except where the backend has a collective library of its own (native_library.hpp: MPI): there,
// without a plan or figures, with plain options (no segments, rings, channels, chunks or
// methods) and a type the library reduces, auto follows the plan measured on these ranks
// between ddl's algorithms and the library (measured_choice.hpp), which the backend makes in
// the first such collective or reads from what it measured before.
//
// Cost: that of the chosen algorithm (the plan's, with a plan).
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "algorithms/measured_choice.hpp"
#include "algorithms/native_library.hpp"
#include "algorithms/one_sided.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

namespace {

// Everything best_allreduce's answer depends on when the figures are plain numbers.
struct ChoiceKey {
  std::vector<int> dims;
  std::size_t bytes = 0;
  int rings = 1, channels = 1, chunks = 1;
  std::size_t segment_bytes = 0;
  HdOrder order = HdOrder::near;
  double gamma = 0;
  std::vector<IntraMethod> methods;
  std::vector<LinkCost> links;
  bool operator==(const ChoiceKey& o) const {
    auto same_links = [&] {
      for (std::size_t i = 0; i < links.size(); ++i)
        if (links[i].alpha != o.links[i].alpha || links[i].beta != o.links[i].beta ||
            links[i].shared_memory != o.links[i].shared_memory ||
            links[i].rendezvous_bytes != o.links[i].rendezvous_bytes)
          return false;
      return true;
    };
    return dims == o.dims && bytes == o.bytes && rings == o.rings && channels == o.channels &&
           chunks == o.chunks && segment_bytes == o.segment_bytes && order == o.order &&
           gamma == o.gamma && methods == o.methods && links.size() == o.links.size() &&
           same_links();
  }
};

struct ChoiceKeyHash {
  std::size_t operator()(const ChoiceKey& k) const {
    std::size_t h = std::hash<std::size_t>{}(k.bytes);
    auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (int d : k.dims) mix(static_cast<std::size_t>(d));
    mix(static_cast<std::size_t>(k.rings));
    mix(static_cast<std::size_t>(k.channels));
    mix(static_cast<std::size_t>(k.chunks));
    mix(k.segment_bytes);
    mix(static_cast<std::size_t>(k.order));
    mix(std::hash<double>{}(k.gamma));
    for (IntraMethod m : k.methods) mix(static_cast<std::size_t>(m));
    for (const LinkCost& l : k.links)
      mix(std::hash<double>{}(l.alpha) ^ std::hash<double>{}(l.beta) ^ l.shared_memory ^
          (l.rendezvous_bytes << 1));
    return h;
  }
};

// best_allreduce, remembered: every rank asks the same question (and a training run asks it
// per bucket), and pricing builds every rank's schedules. Only plain figures are remembered:
// with per-size or peer-read callbacks the figures are not all in the key. The key is compared
// field by field, not formatted: this lookup is on the latency path of every auto collective
// (a key printed to a string cost 1.2 us per call, more than a 4 KB allreduce between two ranks).
const Algorithm& choose(const Dims& dims, const CostParams& c, std::size_t bytes,
                        const Options& o) {
  // In-switch figures are not in the key either (one platform has them, so none is remembered).
  if (c.message || c.peer_read || c.in_switch[0].members || c.in_switch[1].members)
    return find_algorithm(best_allreduce(dims, c, bytes, o));
  // Built in place each call, so a lookup that hits allocates nothing once the vectors have grown.
  thread_local ChoiceKey key;
  key.dims = dims.extents();
  key.bytes = bytes;
  key.rings = o.rings;
  key.channels = o.channels;
  key.chunks = o.chunks;
  key.segment_bytes = o.segment_bytes;
  key.order = o.hd_order;
  key.gamma = c.gamma;
  key.methods = o.methods;
  key.links = c.per_dim;
  static std::mutex lock;
  static std::unordered_map<ChoiceKey, const Algorithm*, ChoiceKeyHash> chosen;
  {
    const std::lock_guard<std::mutex> guard(lock);
    if (const auto it = chosen.find(key); it != chosen.end()) return *it->second;
  }
  const Algorithm& best = find_algorithm(best_allreduce(dims, c, bytes, o));
  const std::lock_guard<std::mutex> guard(lock);
  chosen.emplace(key, &best);
  return best;
}

}  // namespace

void allreduce_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  element_count(buf, type);
  if (opts.plan) {
    if (opts.plan->ranks != comm.size())
      throw InvalidArgument("auto: the plan is for " + std::to_string(opts.plan->ranks) +
                            " ranks, this run has " + std::to_string(comm.size()));
    // A plan's algorithms are never auto (Plan::validate), so they ignore opts.plan: no copy of
    // the options on this path, which small collectives take every call.
    find_algorithm(opts.plan->entry_for(buf.bytes).algorithm).run(comm, buf, type, op, opts);
    return;
  }
  const Dims dims = effective_dims(opts, comm.size());
  if (!opts.cost.per_dim.empty()) {
    choose(dims, opts.cost, buf.bytes, opts).run(comm, buf, type, op, opts);
    return;
  }
  NativeLibrary* library = comm.native_library();
  if (library && measured_choice_applies(opts) && library->native_supports(type)) {
    const std::shared_ptr<const Plan> measured = library->measured_plan(dims, nullptr);
    find_algorithm(measured->entry_for(buf.bytes).algorithm).run(comm, buf, type, op, opts);
    return;
  }
  CostParams costs = uniform_costs(dims);
  if (shares_memory_with_all(comm)) {
    const OneSided* shared = comm.one_sided();  // null only on one rank: no messages at all
    mark_shared_memory(costs, shared ? shared->eager_limit() : 0);
  }
  choose(dims, costs, buf.bytes, opts).run(comm, buf, type, op, opts);
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
