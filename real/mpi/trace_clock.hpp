// One time base for the traces of all ranks of a real run. Each rank's clock (the
// communicator's now(), a monotonic wall clock) runs at its own offset; on one node the ranks
// share one clock, across nodes they do not. align_clock() estimates, for every rank, the
// offset that maps its clock onto rank 0's, and shifts the common origin to rank 0's clock at
// the end of the alignment, so traces start near 0 on every rank.
//
// Method (Cristian's algorithm): after a barrier, rank 0 answers each other rank in turn for
// `rounds` ping-pongs. A rank sends at t1, rank 0 replies with its clock t0, the reply lands at
// t2; assuming the two directions take equally long, rank 0's clock read t0 at the local time
// (t1 + t2) / 2, so offset = t0 - (t1 + t2) / 2. The round with the shortest round trip
// t2 - t1 is kept: its error is at most half that round trip (the asymmetry bound). Clock
// drift after the alignment is not corrected (steady clocks drift by ppm: ~1 us per second).
#pragma once

#include <mpi.h>

#include "algorithms/communicator.hpp"

namespace ddl {

struct ClockAlignment {
  // Add to comm.now() to get seconds since the common origin on rank 0's clock.
  double offset_s = 0;
  // Half the shortest round trip of this rank's ping-pongs (0 on rank 0): the error bound.
  double uncertainty_s = 0;
  // The largest uncertainty over all ranks (the same on every rank).
  double max_uncertainty_s = 0;
};

// Collective over `world` (blocking, like the argument check: it runs before any collective).
// `comm` provides the clock the trace will read.
// Every wait is bounded by timeout_s (ddl::Timeout naming the peer or step).
ClockAlignment align_clock(Communicator& comm, MPI_Comm world, double timeout_s, int rounds = 20);

}  // namespace ddl
