// Ring exchanges inside one group, as schedule steps (used by ring, ddl, hier and the
// standalone reduce_scatter / allgather). Member i sends to member i+1 and receives from i-1.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/schedule.hpp"

namespace ddl {

// g-1 steps over `range`, split into g blocks (partition(range, g)). At step s member i sends
// block i-s-1 and reduces block i-s-2 received; afterwards member i holds block i reduced.
// `window` selects steps [first, first + count) (clamped), so a long ring can be built and run
// a window at a time: p simulated ranks holding all 2(p-1) steps each would need O(p^2) memory.
struct StepWindow {
  std::size_t first = 0;
  std::size_t count = SIZE_MAX;
};
Schedule ring_reduce_scatter(const Group& group, Block range, std::size_t elem_size, int dimension,
                             StepWindow window = {});
// g-1 steps: member i starts with block i; at step s it sends block i-s and receives block
// i-s-1; afterwards every member holds every block.
Schedule ring_allgather(const Group& group, Block range, std::size_t elem_size, int dimension,
                        StepWindow window = {});

// The same two rings over blocks given one per member (block i: member i's), in place of
// partition(range, g): hier's leaders ring over their nodes' shares of the ranks' blocks.
Schedule ring_reduce_scatter(const Group& group, const std::vector<Block>& blocks, int dimension);
Schedule ring_allgather(const Group& group, const std::vector<Block>& blocks, int dimension);

// Build and execute a whole ring reduce-scatter (or allgather) over `group`, a window of steps
// at a time; the same messages in the same order as one execute() of the full schedule. On a
// backend with StepPacing, the windows after the run ends early are never built.
void run_ring(Communicator& comm, MutView buffer, DType type, ReduceOp op, const Group& group,
              Block range, bool reduce_scatter, const ExecOptions& options);

// One ring of several played side by side (channels): its group and its range of the buffer.
struct RingLane {
  Group group;
  Block range;
};
// run_ring for rings side by side, ring j with tag options.tag_base + j; the ranges must be
// disjoint.
void run_rings(Communicator& comm, MutView buffer, DType type, ReduceOp op,
               std::span<const RingLane> lanes, bool reduce_scatter, const ExecOptions& options);

}  // namespace ddl
