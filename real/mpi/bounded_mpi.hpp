// Every wait of the real backend is bounded, and a wait that runs out says which rank it was
// waiting for. Three pieces:
//
//  - wait_bounded(): polls a non-blocking MPI request (MPI_Iallreduce, MPI_Ibcast, MPI_Isend,
//    ...) against --timeout and throws ddl::Timeout naming the operation. Blocking MPI calls are
//    replaced by their non-blocking forms plus this wait.
//  - Watchdog: guards the few calls that must stay blocking (MPI_Comm_split_type and
//    MPI_Comm_dup have no bounded form in Open MPI 4.1; the baseline's MPI_Allreduce is what is
//    being measured). When the call outlives the deadline, the watchdog thread prints the
//    operation and every same-node rank it finds stopped or gone, then ends the process.
//  - unresponsive_ranks(): after a Timeout, the ranks still running report to rank 0, which
//    names those that did not (a rank stopped by SIGSTOP, stuck, or on a dead node). ddlrun
//    calls it before stopping the job, so one message says "rank 2 did not answer".
//
// fault_point() lets the tests stop or kill one rank at a named point (DDLRUN_FAULT).
#pragma once

#include <mpi.h>

#include <string>

namespace ddl {

// Polls `req` until it completes; after timeout_s throws Timeout "rank R: timed out after T s
// in WHAT (another rank stopped or is stuck)". `quiet` sleeps between polls (bounded_wait.hpp).
void wait_bounded(MPI_Request& req, MPI_Comm comm, double timeout_s, const std::string& what,
                  bool quiet = false);

// MPI_Allreduce in place, bounded: MPI_Iallreduce + wait_bounded.
void bounded_allreduce(void* inout, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       double timeout_s, const std::string& what);

// Records every rank's host and process id (one bounded MPI_Iallgather on `world`), so a
// watchdog can look at the other ranks of its node without MPI. Call once after MPI_Init.
void record_ranks(MPI_Comm world, double timeout_s);

// "rank 2 (pid 1234) is stopped" for every rank on this node found stopped, traced or gone
// (from /proc); empty when none is (or record_ranks was not called).
std::string stopped_ranks_on_this_node();

// Collective-ish, after a Timeout on any rank: each rank reports to rank 0 within grace_s; rank
// 0 names the ranks that did not report and tells the others. Returns the sentence to add to the
// error ("rank 2 did not answer within 2 s: it is stopped, stuck or gone"). Never hangs: every
// wait is bounded by grace_s (rank 0) or rank0_late_s + grace_s + 1 s (the others, who then
// name rank 0). rank0_late_s: how much later than another rank rank 0 may time out, when its
// own waits have longer bounds (ddlcalibrate's control messages).
std::string unresponsive_ranks(MPI_Comm world, double grace_s, double rank0_late_s = 0);

// For a long wait's polling loop on a rank other than 0: answers rank 0's "are you there?" of
// unresponsive_ranks, so a rank that only waits, with a longer bound, is not named as stopped.
// wait_bounded calls it; a tool's own waits call it too. Does nothing before record_ranks.
void answer_ping();

// Ends the process (message on stderr, exit status 1) when the guarded call outlives
// timeout_s. The message names `what` (a string literal: it is kept), this rank and the ranks
// of this node found stopped or gone. Arming is two atomic stores, cheap enough for a timed
// region; one thread, started on first use, checks the deadline ten times a second.
class WatchdogGuard {
 public:
  WatchdogGuard(double timeout_s, const char* what);
  ~WatchdogGuard();  // disarms
  WatchdogGuard(const WatchdogGuard&) = delete;
  WatchdogGuard& operator=(const WatchdogGuard&) = delete;
};

// Test hook: with DDLRUN_FAULT=stop:R:POINT (or kill:R:POINT) in the environment, rank R sends
// itself SIGSTOP (SIGKILL) the first time it reaches POINT. Points: sweep, baseline,
// trace_gather, workload. Without the variable it does nothing.
void fault_point(const char* point);

}  // namespace ddl
