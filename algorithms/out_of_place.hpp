// Collectives whose receives land where their sends read (all-to-all, sendrecv) run on this
// rank's buffer in place: the input is copied to scratch once and the schedule's sends read the
// copy (ExecOptions::send_from) while its receives write the buffer, as MPI_IN_PLACE does. The
// copy is priced too: a copy touches 2 bytes per byte where a reduction touches 3 (the
// simulator's local work, sim/sim_communicator.cpp), so it costs 2/3 γ per byte.
#pragma once

#include <cstddef>

#include "algorithms/cost_params.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// Copies the first `input_bytes` of `buffer` to scratch and plays `schedule` with its sends
// reading that copy. `op` is not used: nothing is reduced.
void run_out_of_place(Communicator& comm, MutView buffer, std::size_t input_bytes, DType type,
                      const Schedule& schedule, std::size_t segment_bytes, int tag_base);

// The time of copying `bytes` on this rank's memory.
double local_copy_cost(const CostParams& params, std::size_t bytes);

// alltoall's block: count / p elements in bytes (nccl-tests' convention: the remainder of the
// count stays where it is).
std::size_t alltoall_block_bytes(std::size_t count, int ranks, std::size_t elem_size);

// An all-to-all that is one schedule over the buffer's blocks (pairwise, linear): rank r's steps
// of p ranks exchanging blocks of `block` bytes at offset j * block for rank j.
using AlltoallSteps = Schedule (*)(int p, int r, std::size_t block);
// Runs it out of place on the first p blocks of `buf` (nothing when a block is empty).
void run_alltoall(Communicator& comm, MutView buf, DType type, const Options& opts,
                  AlltoallSteps steps);
// Its price: the schedules' over the query's network plus the copy of the p blocks.
double alltoall_cost(const CostQuery& q, AlltoallSteps steps);

}  // namespace ddl
