// Analytical α-β-γ cost of each algorithm: the cost function it registers beside its runner
// (registry.hpp), which for every schedule-built algorithm prices its own schedules
// (schedule_cost.hpp). Used by `auto` (argmin over the table) and printed beside every
// measured or simulated time, so model, simulation and measurement sit side by side.
//
//   α  latency of one message on a link class (s)
//   β  time per byte on that link class (s/B, i.e. 1 / bandwidth)
//   γ  time per byte of reduction result (s/B)
//   S  bytes of the whole buffer, p ranks, d_i the extent of dimension i
// With CostParams::message each message pays α and β of its own size; with
// CostParams::peer_read the receives that land in bytes the receiver sent earlier in the same
// allreduce (its second half) take that many times their own time. With a Topology the links
// of each message's route are priced with the flows that share them (contention).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/topology.hpp"

namespace ddl {

// Predicted time of algorithm `name` (a registered allreduce, reduce_scatter, allgather or
// broadcast algorithm) for a buffer of `bytes` on grid `dims`. Throws InvalidArgument for an
// unknown name, a per_dim size that differs from dims.count() or a topology of another size.
double model_time(std::string_view name, const Dims& dims, const CostParams& params,
                  std::size_t bytes, const Options& options, const Topology* topology = nullptr);

// The allreduce algorithm with the least model_time (excluding auto itself, and those that need
// shared memory unless every link class of `params` is); ties go to the earlier entry of the
// table. On a grid of two dimensions or more it also weighs ring with a channel per GPU of a
// node and ddl pipelined over 4..32 chunks of at least 4 MiB, and answers with the algorithm
// string ("ring:channels=8", "ddl:chunks=16") when one of them is least.
std::string best_allreduce(const Dims& dims, const CostParams& params, std::size_t bytes,
                           const Options& options, const Topology* topology = nullptr);

// The algorithm of collective `c` with the least model_time: best_allreduce's answer for
// allreduce; for the others the least of that collective's algorithms (those that pick others
// excluded, ties to the earlier entry of the table).
std::string best_algorithm(Collective c, const Dims& dims, const CostParams& params,
                           std::size_t bytes, const Options& options,
                           const Topology* topology = nullptr);

// Whether `comm` reaches the memory of every other rank (OneSided::shares_memory_with; never
// without one-sided access): its ranks are one node. Sharing is per node, so the first peer that
// does not share ends the search.
bool shares_memory_with_all(Communicator& comm);
// Every link class of `params` marked as shared memory (LinkCost::shared_memory), its messages
// of at least `eager_limit` bytes priced as rendezvous (LinkCost::rendezvous_bytes; 0: none).
void mark_shared_memory(CostParams& params, std::size_t eager_limit = 0);

// The figures an auto prices with on `comm`: options.cost where given, else uniform_costs(dims)
// marked as shared memory (with the transport's eager limit) where this rank shares memory with
// every other.
CostParams auto_figures(Communicator& comm, const Dims& dims, const Options& options);

// The figures `auto` assumes when it is given none: every dimension 1 us and 10 GB/s,
// reduction at 100 GB/s.
CostParams uniform_costs(const Dims& dims);

}  // namespace ddl
