// Calibration measurements on the ranks of one MPI job. Messages go through MpiCommunicator
// (isend / irecv / wait), so each carries the same per-message overhead that ddlrun's
// collectives pay; local work uses the same kernels as MpiCommunicator::reduce / copy.
//
// Every function is collective over the world: all ranks call it with the same arguments.
// Ranks that take no part in a pattern wait in a barrier that sleeps between polls, so on an
// oversubscribed machine they leave the cores to the ranks being measured. Every wait is
// bounded (comm.timeout(), calibrate/control.hpp): a rank that stops is named, never waited for.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "calibrate/patterns.hpp"
#include "calibrate/topology.hpp"
#include "real/mpi/mpi_communicator.hpp"

namespace ddl::calibrate {

// Where a timed message lands: the state of the receive buffer's cache lines.
enum class ReceiveBuffers {
  own,        // last written by the receiving rank (a scratch buffer it keeps reusing)
  peer_read,  // last read by the peer, as a ring's allgather receives into the chunks its
              // reduce-scatter sent: the receiving core must first take the lines back
};
const char* to_string(ReceiveBuffers r);
ReceiveBuffers parse_receive_buffers(const std::string& text);  // InvalidArgument naming text

// Per repetition, seconds of one message of `pattern` on `topology` (pingpong between rank 0
// and `pingpong_peer`: one way; others: one step, calibrate/patterns.hpp), each the mean over a
// batch of back-to-back messages that lasts long enough for the clock, sent from buffers their
// ranks have just written (as a collective's are: see batch_size) into buffers in the state
// `receive`. The result is valid on every rank.
std::vector<double> time_pattern(MpiCommunicator& comm, Pattern pattern, const Topology& topology,
                                 std::size_t bytes, int reps,
                                 ReceiveBuffers receive = ReceiveBuffers::own,
                                 int pingpong_peer = 1);

// The state of a reduce's operands when it is timed.
enum class Operands {
  hot,       // the same reduce has just run on them: in cache wherever they fit
  received,  // as in a collective's step: `in` has just arrived in a ring step inside each node
             // (each rank sending the half of its buffer beside `inout`), `inout` was written by
             // its rank before the step. Measured here: 1.5-2x the hot time at 64 KB-1 MB, alike
             // from 2 MB
};
const char* to_string(Operands o);

// Per repetition, seconds of host_reduce (sum) or memmove over `bytes`, on rank 0 alone
// (`all_ranks` false) or on every rank at once (the slowest rank's time). Valid on every rank.
std::vector<double> time_reduce(MpiCommunicator& comm, const Topology& topology, DType type,
                                std::size_t bytes, int reps, bool all_ranks,
                                Operands operands = Operands::hot);
std::vector<double> time_copy(MpiCommunicator& comm, std::size_t bytes, int reps, bool all_ranks);

}  // namespace ddl::calibrate
