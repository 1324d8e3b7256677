#include "algorithms/registry.hpp"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/error.hpp"
#include "algorithms/largest_transfer.hpp"
#include "algorithms/switch_reduction.hpp"

namespace ddl {

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::allgather: return "allgather";
    case Collective::broadcast: return "broadcast";
    case Collective::alltoall: return "alltoall";
    case Collective::reduce: return "reduce";
    case Collective::gather: return "gather";
    case Collective::scatter: return "scatter";
    case Collective::sendrecv: return "sendrecv";
  }
  return "?";
}

std::span<const Collective> all_collectives() {
  static constexpr Collective all[] = {
      Collective::allreduce, Collective::reduce_scatter, Collective::allgather,
      Collective::broadcast, Collective::alltoall,       Collective::reduce,
      Collective::gather,    Collective::scatter,        Collective::sendrecv};
  return all;
}

Collective parse_collective(std::string_view name) {
  if (name == "reducescatter") return Collective::reduce_scatter;  // nccl-tests' spelling
  std::string known;
  for (Collective c : all_collectives()) {
    if (to_string(c) == name) return c;
    known += (known.empty() ? "" : ", ") + std::string(to_string(c));
  }
  throw InvalidArgument("unknown collective '" + std::string(name) + "' (known: " + known + ")");
}

namespace {

// Room for the algorithms tests register (register_test_algorithm): the table never grows past
// it, so references into it stay valid.
constexpr std::size_t kTestAlgorithms = 8;

std::vector<Algorithm>& table() {
  static std::vector<Algorithm> table = [] {
    std::vector<Algorithm> shipped = {
        // Before ring: at 2 ranks the model ties them, and the tie goes to the earlier entry.
        {"direct", Collective::allreduce, allreduce_direct, allreduce_direct_cost,
         "one-sided get/put in cache-sized chunks, among ranks that share memory (one node)", 0,
         true},
        {"ring", Collective::allreduce, allreduce_ring, allreduce_ring_cost,
         "ring reduce-scatter + allgather over all ranks (bandwidth-optimal; channels=N)",
         kSpecChannels, false, false, kPlanPlain | kPlanEverySize, ring_largest_transfer},
        {"ddl", Collective::allreduce, allreduce_ddl, allreduce_ddl_cost,
         "multi-dimensional, multi-ring: reduce-scatter along dims 1..k, allgather k..1 "
         "(chunks=N pipelines them)",
         kSpecDims | kSpecMethods | kSpecRings | kSpecOrder | kSpecChunks, false, false,
         kPlanGrids | kPlanEverySize, ddl_largest_transfer},
        {"rhd", Collective::allreduce, allreduce_rhd, allreduce_rhd_cost,
         "Rabenseifner recursive halving-doubling (any rank count; order=near|far)", kSpecOrder,
         false, false, kPlanPlain | kPlanEverySize, rhd_largest_transfer},
        {"rd", Collective::allreduce, allreduce_rd, allreduce_rd_cost,
         "recursive doubling: log2 p whole-buffer exchanges (latency-optimal, small buffers)", 0,
         false, false, kPlanPlain},
        {"dbtree", Collective::allreduce, allreduce_dbtree, allreduce_dbtree_cost,
         "pipelined double binary tree, each tree carrying half", 0, false, false,
         kPlanPlain | kPlanEverySize},
        {"hier", Collective::allreduce, allreduce_hier, allreduce_hier_cost,
         "Horovod-style: reduce in node, ring among leaders, broadcast in node", kSpecDims, false,
         false, kPlanPlain | kPlanEverySize},
        // In-switch reduction (switch_reduction.hpp): +inf where the machine has none.
        {"nvls", Collective::allreduce, allreduce_nvls, allreduce_nvls_cost,
         "through the node's switch (NVLink SHARP); across nodes a ring per rail", 0, false, false,
         0, nullptr, 1u << kNodeSwitch},
        {"sharp", Collective::allreduce, allreduce_sharp, allreduce_sharp_cost,
         "ring in the node, the network's switches (SHARP) across nodes, one rail each", 0, false,
         false, 0, nullptr, 1u << kNetworkSwitch},
        {"nvls_sharp", Collective::allreduce, allreduce_nvls_sharp, allreduce_nvls_sharp_cost,
         "the node's switch reduce-scatters, the network's allreduce, the node's allgathers", 0,
         false, false, 0, nullptr, (1u << kNodeSwitch) | (1u << kNetworkSwitch)},
        // The backend's own library (native_library.hpp): not priced, chosen only by measurement.
        {"native", Collective::allreduce, allreduce_native, allreduce_native_cost,
         "the backend's own allreduce (MPI_Allreduce on the MPI backend); not on the simulator", 0,
         false, false, 0, nullptr, 0, true},
        {"auto", Collective::allreduce, allreduce_auto, allreduce_auto_cost,
         "the fastest of the algorithms above: measured on the machine where the backend has a "
         "library of its own (MPI), else the analytical cost model's argmin",
         0, false, true},
        {"reduce_scatter", Collective::reduce_scatter, reduce_scatter_ring,
         reduce_scatter_ring_cost, "ring reduce-scatter", 0, false, false, kPlanPlain},
        {"allgather", Collective::allgather, allgather_ring, allgather_ring_cost, "ring allgather",
         0, false, false, kPlanPlain},
        {"reduce_scatter_hd", Collective::reduce_scatter, reduce_scatter_hd, reduce_scatter_hd_cost,
         "rhd's recursive halving, any rank count (order=near|far), then pieces to blocks",
         kSpecOrder, false, false, kPlanPlain},
        {"allgather_hd", Collective::allgather, allgather_hd, allgather_hd_cost,
         "rhd's recursive doubling, any rank count (order=near|far), blocks to pieces first",
         kSpecOrder, false, false, kPlanPlain},
        {"reduce_scatter_ddl", Collective::reduce_scatter, reduce_scatter_ddl,
         reduce_scatter_ddl_cost,
         "ddl's reduce-scatter along dims 1..k (rings, methods), then pieces to blocks",
         kSpecDims | kSpecMethods | kSpecRings | kSpecOrder, false, false, kPlanGrids},
        {"allgather_ddl", Collective::allgather, allgather_ddl, allgather_ddl_cost,
         "ddl's allgather along dims k..1 (rings, methods), blocks to pieces first",
         kSpecDims | kSpecMethods | kSpecRings | kSpecOrder, false, false, kPlanGrids},
        {"reduce_scatter_hier", Collective::reduce_scatter, reduce_scatter_hier,
         reduce_scatter_hier_cost,
         "hier's: reduce in node, ring among leaders over nodes' blocks, scatter in node",
         kSpecDims, false, false, kPlanPlain},
        {"allgather_hier", Collective::allgather, allgather_hier, allgather_hier_cost,
         "hier's: gather in node, ring among leaders over nodes' blocks, broadcast in node",
         kSpecDims, false, false, kPlanPlain},
        {"broadcast_chain", Collective::broadcast, broadcast_chain, broadcast_chain_cost,
         "pipelined chain broadcast", 0, false, false, kPlanPlain},
        {"broadcast_binomial", Collective::broadcast, broadcast_binomial, broadcast_binomial_cost,
         "binomial-tree broadcast", 0, false, false, kPlanPlain},
        {"alltoall_pairwise", Collective::alltoall, alltoall_pairwise, alltoall_pairwise_cost,
         "pairwise-exchange all-to-all: p-1 steps, one peer each", 0, false, false, kPlanPlain},
        {"alltoall_linear", Collective::alltoall, alltoall_linear, alltoall_linear_cost,
         "all-to-all in one step: every peer at once (NCCL's)", 0, false, false, kPlanPlain},
        {"alltoall_bruck", Collective::alltoall, alltoall_bruck, alltoall_bruck_cost,
         "Bruck all-to-all: ceil(log2 p) steps, for small messages", 0, false, false, kPlanPlain},
        {"alltoall_hier", Collective::alltoall, alltoall_hier, alltoall_hier_cost,
         "two-level: pairwise in the node, then one message per node pair along each rail",
         kSpecDims, false, false, kPlanPlain},
        {"reduce_chain", Collective::reduce, reduce_chain, reduce_chain_cost,
         "pipelined chain reduce toward the root", 0, false, false, kPlanPlain},
        {"reduce_binomial", Collective::reduce, reduce_binomial, reduce_binomial_cost,
         "binomial-tree reduce", 0, false, false, kPlanPlain},
        {"gather", Collective::gather, gather_direct, gather_direct_cost,
         "every rank sends its block to the root at once", 0, false, false, kPlanPlain},
        {"scatter", Collective::scatter, scatter_direct, scatter_direct_cost,
         "the root sends every rank its block at once", 0, false, false, kPlanPlain},
        {"sendrecv", Collective::sendrecv, sendrecv_ring, sendrecv_ring_cost,
         "every rank sends to rank+1 and receives from rank-1", 0, false, false, kPlanPlain},
        // Each collective's auto: the model's argmin over its algorithms above (--coll X --algo
        // auto names it).
        {"reduce_scatter_auto", Collective::reduce_scatter, reduce_scatter_auto,
         reduce_scatter_auto_cost, "the reduce-scatter above of least modelled cost", 0, false,
         true},
        {"allgather_auto", Collective::allgather, allgather_auto, allgather_auto_cost,
         "the allgather above of least modelled cost", 0, false, true},
        {"broadcast_auto", Collective::broadcast, broadcast_auto, broadcast_auto_cost,
         "the broadcast above of least modelled cost", 0, false, true},
        {"alltoall_auto", Collective::alltoall, alltoall_auto, alltoall_auto_cost,
         "the all-to-all above of least modelled cost", 0, false, true},
        {"reduce_auto", Collective::reduce, reduce_auto, reduce_auto_cost,
         "the reduce above of least modelled cost", 0, false, true},
    };
    shipped.reserve(shipped.size() + kTestAlgorithms);
    return shipped;
  }();
  return table;
}

}  // namespace

const std::vector<Algorithm>& algorithms() {
  return table();
}

void register_test_algorithm(Algorithm a) {
  std::vector<Algorithm>& t = table();
  if (find_registered(a.name))
    throw InvalidArgument("algorithm '" + a.name + "' is registered already");
  if (t.size() == t.capacity())
    throw InvalidArgument("no room for algorithm '" + a.name + "': tests register at most " +
                          std::to_string(kTestAlgorithms));
  t.push_back(std::move(a));
}

const Algorithm* find_registered(std::string_view name) {
  for (const Algorithm& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

const Algorithm& find_algorithm(std::string_view name) {
  if (const Algorithm* a = find_registered(name)) return *a;
  if (name.find(':') == std::string_view::npos) {
    std::string known;
    for (const Algorithm& a : algorithms()) known += (known.empty() ? "" : ", ") + a.name;
    throw InvalidArgument("unknown algorithm '" + std::string(name) + "' (known: " + known + ")");
  }
  const AlgorithmSpec spec = parse_algorithm_spec(name);
  const Algorithm& base = *find_registered(spec.name);
  if (spec.plain()) return base;
  // Resolved strings live as long as the process: callers keep references (sweeps, plans).
  // Ranks of the loopback backend are threads, hence the lock.
  static std::mutex lock;
  static std::deque<Algorithm> resolved;
  static std::unordered_map<std::string, const Algorithm*> by_name;
  const std::string canonical = spec.to_string();
  const std::lock_guard<std::mutex> guard(lock);
  if (const auto it = by_name.find(canonical); it != by_name.end()) return *it->second;
  Algorithm a = base;
  a.name = canonical;
  a.run = [spec, run = base.run](Communicator& comm, MutView buf, DType type, ReduceOp op,
                                 const Options& opts) {
    run(comm, buf, type, op, spec.apply(opts));
  };
  a.cost = [spec, cost = base.cost](const CostQuery& q) {
    const Options opts = spec.apply(q.options);
    return cost(CostQuery{q.dims, q.bytes, opts, q.params, q.topology});
  };
  const Algorithm& kept = resolved.emplace_back(std::move(a));
  by_name.emplace(canonical, &kept);
  return kept;
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

Dims algorithm_grid(const CostQuery& q) {
  if (q.options.dims.empty()) return q.dims;
  q.options.dims.require_world(q.dims.rank_count());
  return q.options.dims;
}

double bus_factor(Collective c, int ranks) {
  const double p = ranks;
  switch (c) {
    case Collective::allreduce: return 2.0 * (p - 1) / p;
    case Collective::reduce_scatter:
    case Collective::allgather:
    case Collective::alltoall:
    case Collective::gather:
    case Collective::scatter: return (p - 1) / p;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::sendrecv: return 1.0;
  }
  return 1.0;
}

}  // namespace ddl
