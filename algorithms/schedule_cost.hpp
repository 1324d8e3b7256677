// The α-β-γ price of schedules: the one cost function every schedule-built algorithm
// registers, so the model walks exactly the steps the executor plays and cannot drift from the
// algorithm.
//
// Every rank's schedules are built (one rank at a time) and walked step by step, as execute()
// runs them, by the rules of step_semantics.hpp (which bytes a step reduces, when a rank leaves
// it, peer reads); step_pricing.hpp prices one step's messages:
// - without a topology (link classes only, CostParams::per_dim): steps in lockstep, each costing
//   its slowest rank; a message between ranks a and b uses the class of the outermost dimension
//   of `dims` in which their coordinates differ (ClassLoad);
// - with a topology (topology.hpp): every rank keeps its own clock; a message starts once both
//   its ends have finished the previous step, pays its route's latency, then is served by each
//   shared link of its route (SharedLinks), and ends when its last link has served it.
// CostParams::message (per-size α, β) prices each message at its own size; CostParams::peer_read
// slows a plain receive into bytes its receiver sent and has not written since (an allreduce's
// second half), unless sharing its link is slower.
//
// Over a topology every rank's messages are held until the last rank is built (a step's flows
// come from all ranks), so they are kept small: 8 bytes each (the peer and an index into a
// table of distinct sizes), steps as runs of equal message counts, and each step is priced in
// buffers reused from step to step. The result is the plain walk's to the bit
// (algorithms/tests/test_schedule_cost_exact.cpp walks every message of every step at once).
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
