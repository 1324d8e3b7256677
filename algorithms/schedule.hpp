// Schedules as data. Every algorithm is a pure function that builds, for one rank, a list of
// steps (who to send which byte range to, what to receive and whether to reduce it), and one
// executor runs any number of such schedules side by side in lockstep. Schedules are unit-
// tested without a communicator; the executor is the only place that touches requests.
//
// Vocabulary used by every algorithm file:
//   block   - the part of the buffer one group member owns after a reduce-scatter
//             (blocks are element-aligned and differ by at most one element);
//   step    - one round of communication: each rank sends and receives at most a few
//             ranges, then reduces what it received;
//   segment - a piece of one transfer (segment_bytes); a step's segments are pipelined so
//             the reduction of segment i overlaps the transfer of segment i+1.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "algorithms/communicator.hpp"

namespace ddl {

// A byte range of the collective's buffer exchanged with one peer (a world rank).
struct Transfer {
  int peer = -1;
  std::size_t offset = 0;
  std::size_t bytes = 0;
  bool operator==(const Transfer&) const = default;
};

struct Step {
  std::vector<Transfer> sends;
  // Received ranges: reduced into the buffer when `reduce`, else written into it directly.
  std::vector<Transfer> recvs;
  bool reduce = false;
  // Trace annotation: phase name and 0-based dimension (-1: none).
  const char* phase = "";
  int dimension = -1;
};

using Schedule = std::vector<Step>;

// Element-aligned split of `count` elements into `parts` blocks, in bytes: the first
// count % parts blocks get one element more. Blocks are contiguous and cover [0, count*elem).
struct Block {
  std::size_t offset = 0;
  std::size_t bytes = 0;
  bool operator==(const Block&) const = default;
};
std::vector<Block> partition(std::size_t count, std::size_t parts, std::size_t elem_size);
// The same split applied to a sub-range: block i of `range`, offsets absolute.
std::vector<Block> partition(Block range, std::size_t parts, std::size_t elem_size);

// A group of world ranks acting together (one ring, one dimension of the grid); `me` is this
// rank's index in `ranks`.
struct Group {
  std::vector<int> ranks;
  int me = 0;
  int size() const { return static_cast<int>(ranks.size()); }
  int at(int index) const;  // ranks[index mod size], negative indices wrap
};

// All ranks of the communicator, in rank order.
Group world_group(const Communicator& comm);
// The same for `ranks` ranks seen from `me` (cost functions build every rank's schedule).
Group world_group(int ranks, int me);

// Elements in the buffer; throws InvalidArgument unless it is a whole number of them.
std::size_t element_count(MutView buffer, DType type);

// An algorithm's word that every rank of the communicator has these schedules' runs of alike
// steps (step_runs.hpp) at the same steps, as ring's and ddl's do: only then does execute() offer
// them to the backend's StepPacing (step_pacing.hpp), which may end long ones early (a rank would
// otherwise skip steps its peer plays). A long run built a window at a time (run_ring) says where
// the window lies in it.
struct UniformRuns {
  std::size_t before = 0;  // steps of the same run played before these schedules
  std::size_t after = 0;   // and still to come after them
};

// Where a schedule of an independent play may start: once schedule `after` has completed
// `steps` of its steps (a pipeline's stagger); after < 0: at once.
struct Gate {
  int after = -1;
  std::size_t steps = 0;
};

struct ExecOptions {
  std::size_t segment_bytes = 0;                           // 0: one segment per transfer
  int tag_base = 0;                                        // schedule j uses tag tag_base + j
  std::optional<UniformRuns> uniform_runs = std::nullopt;  // unset: every step is played
  // Set: sends read this view at their offsets, and receives write the buffer (an out-of-place
  // exchange: all-to-all, sendrecv). A receive may then land in bytes the step's sends name.
  std::optional<ConstView> send_from = std::nullopt;
  // Empty: lockstep (below). Else one gate per schedule, and the schedules are played
  // independently: each starts its next step as soon as its own step has completed (and its
  // gate is met), whatever the others are doing; a rank waits for whichever message arrives
  // first (Communicator::wait_any). Pipelines need it: a chunk crossing the network must not
  // wait, step by step, for another chunk crossing a node. Schedules must then touch disjoint
  // bytes; uniform_runs does not apply (every step is played).
  std::vector<Gate> gates = {};
};

// Run the schedules concurrently: at step t every schedule that has a step t posts its
// receives and sends, then receives are reduced segment by segment as they arrive, then sends
// are completed. A step's sends read the buffer as it was before the step: where a step
// reduces into bytes it also sends (rd's whole-buffer exchange), its receives land whole and
// are reduced once its sends have completed (step_semantics.hpp). (A plain receive into bytes
// the same step sends is not allowed.) Requires every peer to run matching schedules (same
// count, same order). `op` must not be avg (reduce with sum and divide afterwards). With
// options.uniform_runs on a backend with StepPacing, a long run of alike steps may end early:
// the time of its remaining steps is spent, their messages are not sent. Returns true when that
// ended the run with the steps of uniform_runs->after among those not played.
bool execute(Communicator& comm, MutView buffer, DType type, ReduceOp op,
             std::span<const Schedule> schedules, const ExecOptions& options);

// The independent play of execute() (options.gates set), schedule_independent.cpp.
void execute_independent(Communicator& comm, MutView buffer, DType type, ReduceOp op,
                         std::span<const Schedule> schedules, const ExecOptions& options);

// For avg: divide `range` of the buffer by the number of contributing ranks; no-op otherwise.
void finish_average(Communicator& comm, MutView range, DType type, ReduceOp op,
                    std::size_t contributors);
// avg reduces as sum; every other op as itself.
ReduceOp reduction_op(ReduceOp op);

}  // namespace ddl
