// What the in-switch allreduces (nvls, sharp, nvls_sharp) share: the groups they run in and one
// switch collective started and waited.
//
// Vocabulary: a node is g consecutive ranks (rank = node * g + local index, as every platform
// of this project numbers its GPUs); a rail is the ranks of one local index, one per node (the
// GPUs that reach the network through the same NIC position, which a SHARP domain serves).
#pragma once

#include "algorithms/communicator.hpp"
#include "algorithms/cost_params.hpp"
#include "algorithms/schedule.hpp"
#include "algorithms/switch_reduction.hpp"

namespace ddl {

struct NodeRail {
  Group node;  // the g ranks of this rank's node
  Group rail;  // the ranks of its local index, one per node
};
// InvalidArgument naming `algo` unless `per_node` divides `ranks`.
NodeRail node_and_rail(int ranks, int rank, int per_node, const char* algo);

// This rank's switch domain at `level` (switch_reduction.hpp), or InvalidArgument naming `algo`
// and what is missing: a backend without in-switch reduction (MPI, CUDA, loopback) or a
// platform without that level's switches.
std::vector<int> require_switch_domain(Communicator& comm, SwitchLevel level, const char* algo);
// InvalidArgument naming `algo` unless `domain` is exactly `expected`'s ranks (the algorithm's
// node or rail as node_and_rail() numbers them).
void require_domain_is(const std::vector<int>& domain, const Group& expected, SwitchLevel level,
                       int rank, const char* algo);

// One switch collective over `data`, waited.
void run_switch(Communicator& comm, SwitchLevel level, SwitchCollective kind, MutView data,
                DType type, ReduceOp op);

// The model's time of a switch collective of `bytes` at `level`, +inf where params have no such
// switch or it serves another member count than `members`.
double switch_cost(const CostParams& params, SwitchLevel level, int members, SwitchCollective kind,
                   std::size_t bytes);

}  // namespace ddl
