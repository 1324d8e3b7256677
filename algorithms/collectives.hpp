// Entry points of every algorithm (signature: see AlgorithmFn in registry.hpp) and their cost
// functions (CostFn), each defined beside its runner. One file each.
#pragma once

#include "algorithms/registry.hpp"

namespace ddl {

void allreduce_direct(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_ring(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_ddl(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_rhd(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_rd(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_dbtree(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_hier(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_auto(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_nvls(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_sharp(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_nvls_sharp(Communicator&, MutView, DType, ReduceOp, const Options&);
void allreduce_native(Communicator&, MutView, DType, ReduceOp, const Options&);

void reduce_scatter_ring(Communicator&, MutView, DType, ReduceOp, const Options&);
void allgather_ring(Communicator&, MutView, DType, ReduceOp, const Options&);
void reduce_scatter_hd(Communicator&, MutView, DType, ReduceOp, const Options&);
void allgather_hd(Communicator&, MutView, DType, ReduceOp, const Options&);
void reduce_scatter_ddl(Communicator&, MutView, DType, ReduceOp, const Options&);
void allgather_ddl(Communicator&, MutView, DType, ReduceOp, const Options&);
void reduce_scatter_hier(Communicator&, MutView, DType, ReduceOp, const Options&);
void allgather_hier(Communicator&, MutView, DType, ReduceOp, const Options&);
void broadcast_chain(Communicator&, MutView, DType, ReduceOp, const Options&);
void broadcast_binomial(Communicator&, MutView, DType, ReduceOp, const Options&);
void alltoall_pairwise(Communicator&, MutView, DType, ReduceOp, const Options&);
void alltoall_linear(Communicator&, MutView, DType, ReduceOp, const Options&);
void alltoall_bruck(Communicator&, MutView, DType, ReduceOp, const Options&);
void alltoall_hier(Communicator&, MutView, DType, ReduceOp, const Options&);
void reduce_chain(Communicator&, MutView, DType, ReduceOp, const Options&);
void reduce_binomial(Communicator&, MutView, DType, ReduceOp, const Options&);
void gather_direct(Communicator&, MutView, DType, ReduceOp, const Options&);
void scatter_direct(Communicator&, MutView, DType, ReduceOp, const Options&);
void sendrecv_ring(Communicator&, MutView, DType, ReduceOp, const Options&);
void reduce_scatter_auto(Communicator&, MutView, DType, ReduceOp, const Options&);
void allgather_auto(Communicator&, MutView, DType, ReduceOp, const Options&);
void broadcast_auto(Communicator&, MutView, DType, ReduceOp, const Options&);
void alltoall_auto(Communicator&, MutView, DType, ReduceOp, const Options&);
void reduce_auto(Communicator&, MutView, DType, ReduceOp, const Options&);

double allreduce_direct_cost(const CostQuery&);
double allreduce_ring_cost(const CostQuery&);
double allreduce_ddl_cost(const CostQuery&);
double allreduce_rhd_cost(const CostQuery&);
double allreduce_rd_cost(const CostQuery&);
double allreduce_dbtree_cost(const CostQuery&);
double allreduce_hier_cost(const CostQuery&);
double allreduce_auto_cost(const CostQuery&);
double allreduce_nvls_cost(const CostQuery&);
double allreduce_sharp_cost(const CostQuery&);
double allreduce_nvls_sharp_cost(const CostQuery&);
double allreduce_native_cost(const CostQuery&);
double reduce_scatter_ring_cost(const CostQuery&);
double allgather_ring_cost(const CostQuery&);
double reduce_scatter_hd_cost(const CostQuery&);
double allgather_hd_cost(const CostQuery&);
double reduce_scatter_hier_cost(const CostQuery&);
double allgather_hier_cost(const CostQuery&);
double reduce_scatter_ddl_cost(const CostQuery&);
double allgather_ddl_cost(const CostQuery&);
double broadcast_chain_cost(const CostQuery&);
double broadcast_binomial_cost(const CostQuery&);
double alltoall_pairwise_cost(const CostQuery&);
double alltoall_linear_cost(const CostQuery&);
double alltoall_bruck_cost(const CostQuery&);
double alltoall_hier_cost(const CostQuery&);
double reduce_chain_cost(const CostQuery&);
double reduce_binomial_cost(const CostQuery&);
double gather_direct_cost(const CostQuery&);
double scatter_direct_cost(const CostQuery&);
double sendrecv_ring_cost(const CostQuery&);
double reduce_scatter_auto_cost(const CostQuery&);
double allgather_auto_cost(const CostQuery&);
double broadcast_auto_cost(const CostQuery&);
double alltoall_auto_cost(const CostQuery&);
double reduce_auto_cost(const CostQuery&);

}  // namespace ddl
