// The pure part of in-switch reduction (switch_reduction.hpp): how a switch cuts a collective
// into chunks and in what order it moves them, shared by the simulator's switch and the cost
// model, so the model prices exactly the timeline the simulator plays.
//
// The switch works chunk by chunk, one chunk each way at a time: chunk c goes up (every member
// that sends it, at once, each on its own link) once chunk c-1 is up; once up it is reduced at
// the switch's rate; it goes down (to every member that receives it, at once) once reduced and
// once chunk c-1 is down. So chunk c+1 goes up while chunk c goes down: the links' two
// directions are busy together, and a long collective takes about S / bandwidth.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/cost_params.hpp"
#include "algorithms/schedule.hpp"
#include "algorithms/switch_reduction.hpp"

namespace ddl {

struct SwitchChunk {
  Block range;     // bytes of the buffer
  int owner = -1;  // member whose block holds it (reduce_scatter, allgather); -1: allreduce
};

// The chunks of a collective of `count` elements of `elem_size` bytes among `members`: at most
// `chunk_bytes` each (rounded down to whole elements, at least one; 0: no limit). An allreduce
// cuts the whole buffer; reduce_scatter and allgather cut each member's block
// (partition(count, members)) apart, since each block goes to or comes from one member.
std::vector<SwitchChunk> switch_chunks(SwitchCollective kind, std::size_t count,
                                       std::size_t elem_size, int members, std::size_t chunk_bytes);
// Whether `member` sends chunk `c` up, receives it down; whether the switch reduces it.
bool sends_up(SwitchCollective kind, const SwitchChunk& c, int member);
bool receives_down(SwitchCollective kind, const SwitchChunk& c, int member);
bool reduces(SwitchCollective kind);

// The timeline above for chunk times up[c], reduce[c], down[c] (seconds, one entry per chunk):
// when the last chunk is down, from the start.
double switch_pipeline_time(const std::vector<double>& up, const std::vector<double>& reduce,
                            const std::vector<double>& down);

// The time of one collective of `bytes` (one-byte elements) through a switch of `cost`: each
// chunk takes α + n β each way and members x n x reduce_beta to reduce when it reduces.
double switch_collective_time(const SwitchCost& cost, SwitchCollective kind, std::size_t bytes);

}  // namespace ddl
