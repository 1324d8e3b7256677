// Calibration measurements on the ranks of one MPI job. Messages go through MpiCommunicator
// (isend / irecv / wait), so each carries the same per-message overhead that ddlrun's
// collectives pay; local work uses the same kernels as MpiCommunicator::reduce / copy.
//
// Every function is collective over the world: all ranks call it with the same arguments.
// Ranks that take no part in a pattern wait in a barrier that sleeps between polls, so on an
// oversubscribed machine they leave the cores to the ranks being measured.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "algorithms/types.hpp"
#include "real/mpi_communicator.hpp"

namespace ddl::calibrate {

enum class Pattern {
  pingpong,       // rank 0 -> 1, then 1 -> 0: one-way time = round trip / 2
  bidirectional,  // ranks 0 and 1 send to each other at once: time of one exchange
  pairs,          // every pair (2i, 2i+1) exchanges at once: time of the slowest exchange
  ring,           // every rank sends to r+1 and receives from r-1 at once (a ring step)
};
const char* to_string(Pattern p);

// Per repetition, seconds of one message (pingpong: one way; others: one exchange), each the
// mean over a batch of back-to-back messages that lasts long enough for the clock, sent from
// buffers their ranks have just written (as a collective's are: see batch_size). The result is
// valid on every rank.
std::vector<double> time_pattern(MpiCommunicator& comm, Pattern pattern, std::size_t bytes, int reps);

// Per repetition, seconds of host_reduce (sum) or memmove over `bytes`, on rank 0 alone
// (`all_ranks` false) or on every rank at once (the slowest rank's time). Valid on every rank.
std::vector<double> time_reduce(MpiCommunicator& comm, DType type, std::size_t bytes, int reps, bool all_ranks);
std::vector<double> time_copy(MpiCommunicator& comm, std::size_t bytes, int reps, bool all_ranks);

}  // namespace ddl::calibrate
