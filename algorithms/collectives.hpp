// Entry points of every algorithm (signature: see AlgorithmFn in registry.hpp). One file each.
#pragma once

#include "algorithms/registry.hpp"

namespace ddl {

void allreduce_ring(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_ddl(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_rhd(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_dbtree(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_hier(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_auto(Communicator&, MutView, DType, ReduceOp, const Options&);

void reduce_scatter_ring(Communicator&, MutView, DType, ReduceOp, const Options&);
void allgather_ring(Communicator&, MutView, DType, ReduceOp, const Options&);
void broadcast_chain(Communicator&, MutView, DType, ReduceOp, const Options&);
void broadcast_binomial(Communicator&, MutView, DType, ReduceOp, const Options&);

}  // namespace ddl
