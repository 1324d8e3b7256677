// The α-β-γ price of schedules: the one cost function every schedule-built algorithm
// registers, so the model walks exactly the steps the executor plays and cannot drift from the
// algorithm.
//
// Every rank's schedules are built (one rank at a time) and walked step by step, as execute()
// runs them. A transfer's time depends on what else is in flight:
// - without a topology (link classes only, CostParams::per_dim): steps in lockstep, each costing
//   its slowest rank (leaving the step as below); a message
//   between ranks a and b uses the class of the outermost dimension of `dims` in which their
//   coordinates differ; the messages one rank sends in a step on one class share its one link
//   of that class (their bytes add, the largest α is paid once), and so do the messages it
//   receives;
// - with a topology (topology.hpp): every rank keeps its own clock; a message starts once both
//   its ends have finished the previous step, pays its route's latency, then is served by each
//   shared link of its route as a processor-sharing queue of the step's flows on that link (in
//   their arrival order), and ends when its last link has served it.
// Either way a rank leaves a step after its last send and after its last receive plus γ per byte
// it reduces, whichever is later: execute() reduces what arrives while its sends complete (a step
// that reduces what it sends, rd's, reduces after both).
// CostParams::message (per-size α, β) prices each message at its own size; CostParams::peer_read
// slows a plain receive into bytes its receiver sent and has not written since (an allreduce's
// second half), by 1 + (f - 1) x the share of such bytes, unless sharing its link is slower.
//
// Over a topology every rank's messages are held until the last rank is built (a step's flows
// come from all ranks), so they are kept small: 8 bytes each (the peer and an index into a
// table of distinct sizes), steps as runs of equal message counts, and each step is priced in
// buffers reused from step to step. The result is the plain walk's to the bit
// (algorithms/tests/test_schedule_cost_exact.cpp keeps that walk as the reference).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// The schedules one rank runs side by side (execute()'s argument), for a buffer of
// query.bytes one-byte elements.
using ScheduleBuilder = std::function<std::vector<Schedule>(int rank)>;

// The predicted time of every rank of query.dims.rank_count() running build(rank).
double price_schedules(const CostQuery& query, const ScheduleBuilder& build);

}  // namespace ddl
