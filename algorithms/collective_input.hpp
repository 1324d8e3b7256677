// Out-of-place calls, as the tools time them beside in-place ones (nccl-tests' two column
// groups). ddl's collectives run in place (registry.hpp's buffer contract); an out-of-place call
// is the input's bytes copied into the output buffer on the backend's memory, then the same
// collective in place there. The copy is part of the call's time: it is what an out-of-place
// call costs ddl, where NCCL's kernels read the send buffer directly and save it.
#pragma once

#include <cstddef>

#include "algorithms/communicator.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// The bytes of rank's buffer that `c` reads as its input, for `count` elements of `type` on
// `ranks` ranks: the whole buffer for allreduce, reduce_scatter, alltoall, reduce and sendrecv;
// rank's block (partition(count, ranks)) for allgather and gather; the whole buffer on the root
// and nothing elsewhere for broadcast and scatter.
Block collective_input(Collective c, std::size_t count, DType type, int rank, int ranks, int root);

// One out-of-place call: collective_input's bytes of `input` copied into `output` (as large),
// then `algo` in place on `output`. `input` is not written.
void run_out_of_place_call(Communicator& comm, const Algorithm& algo, ConstView input,
                           MutView output, DType type, ReduceOp op, const Options& options);

}  // namespace ddl
