// reduce_scatter_auto, allgather_auto, broadcast_auto, alltoall_auto, reduce_auto: for each
// collective with a choice of algorithms, the one whose analytical cost is least for this grid,
// these figures and this size, as the allreduce's auto picks (allreduce_auto.cpp): every rank
// evaluates the same pure function (model_choice.hpp, remembered) on the same inputs, so all
// pick alike without a message. Figures: Options::cost, else the uniform network of
// uniform_costs, marked as shared memory where this rank shares it with every other. A plan of
// this collective (Options::plan, Plan::collective: the simulator's contention-aware picks for
// its sweep, sim/model_plan.hpp) is run instead where given. The MPI backend's measured choice
// is the allreduce's only.
//
// Cost: that of the chosen algorithm.
#include "algorithms/collectives.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/model_choice.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

namespace {

void run_auto(Collective c, Communicator& comm, MutView buf, DType type, ReduceOp op,
              const Options& opts) {
  element_count(buf, type);
  if (opts.plan && opts.plan->collective == c) {
    find_algorithm(opts.plan->entry_for(buf.bytes).algorithm).run(comm, buf, type, op, opts);
    return;
  }
  const Dims dims = effective_dims(opts, comm.size());
  model_choice(c, dims, auto_figures(comm, dims, opts), buf.bytes, opts)
      .run(comm, buf, type, op, opts);
}

double auto_cost(Collective c, const CostQuery& q) {
  if (q.bytes == 0 || q.dims.rank_count() == 1) return 0;
  if (q.options.plan && q.options.plan->collective == c)
    return find_algorithm(q.options.plan->entry_for(q.bytes).algorithm).cost(q);
  return find_algorithm(best_algorithm(c, q.dims, q.params, q.bytes, q.options, q.topology))
      .cost(q);
}

}  // namespace

void reduce_scatter_auto(Communicator& comm, MutView buf, DType type, ReduceOp op,
                         const Options& opts) {
  run_auto(Collective::reduce_scatter, comm, buf, type, op, opts);
}
void allgather_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  run_auto(Collective::allgather, comm, buf, type, op, opts);
}
void broadcast_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  run_auto(Collective::broadcast, comm, buf, type, op, opts);
}
void alltoall_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  run_auto(Collective::alltoall, comm, buf, type, op, opts);
}
void reduce_auto(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  run_auto(Collective::reduce, comm, buf, type, op, opts);
}

double reduce_scatter_auto_cost(const CostQuery& q) {
  return auto_cost(Collective::reduce_scatter, q);
}
double allgather_auto_cost(const CostQuery& q) {
  return auto_cost(Collective::allgather, q);
}
double broadcast_auto_cost(const CostQuery& q) {
  return auto_cost(Collective::broadcast, q);
}
double alltoall_auto_cost(const CostQuery& q) {
  return auto_cost(Collective::alltoall, q);
}
double reduce_auto_cost(const CostQuery& q) {
  return auto_cost(Collective::reduce, q);
}

}  // namespace ddl
