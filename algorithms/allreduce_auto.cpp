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
#include "algorithms/collectives.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "algorithms/measured_choice.hpp"
#include "algorithms/model_choice.hpp"
#include "algorithms/native_library.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

void allreduce_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  element_count(buf, type);
  if (opts.plan && opts.plan->collective == Collective::allreduce) {
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
    model_choice(Collective::allreduce, dims, opts.cost, buf.bytes, opts)
        .run(comm, buf, type, op, opts);
    return;
  }
  NativeLibrary* library = comm.native_library();
  if (library && measured_choice_applies(opts) && library->native_supports(type)) {
    const std::shared_ptr<const Plan> measured = library->measured_plan(dims, nullptr);
    find_algorithm(measured->entry_for(buf.bytes).algorithm).run(comm, buf, type, op, opts);
    return;
  }
  model_choice(Collective::allreduce, dims, auto_figures(comm, dims, opts), buf.bytes, opts)
      .run(comm, buf, type, op, opts);
}

double allreduce_auto_cost(const CostQuery& q) {
  if (q.options.plan && q.options.plan->collective == Collective::allreduce) {
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
