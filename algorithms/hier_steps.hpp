// The schedule of hier (Horovod-style hierarchical allreduce) for one rank, as a pure function
// so it is unit-tested without a communicator. See allreduce_hier.cpp for the algorithm.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/dims.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// The ranks of `rank`'s node (dimension 0 of the grid), ordered by that coordinate; the
// node's leader is member 0.
Group hier_node(const Dims& dims, int rank);
// Every leader (coordinate 0 in dimension 0), ordered by rank; `me` is meaningful only when
// `rank` is a leader.
Group hier_leaders(const Dims& dims, int rank);

// The trace dimension of the leaders' ring: the one outer dimension it spans, else -1.
int hier_leaders_dimension(const Dims& dims);
// Node k's share of partition(count, p)'s blocks, one range per node in leader order: its
// members' blocks (ranks k g .. k g + g - 1), which are contiguous.
std::vector<Block> hier_node_blocks(const Dims& dims, std::size_t count, std::size_t elem_size);

// One step inside the node between its leader and every member, over partition(count, p)'s
// blocks: each member sends the leader its own block (to_leader: a gather) or receives it from
// the leader (a scatter); the leader receives or sends every member's.
Step hier_leader_step(const Group& node, int rank, const std::vector<Block>& blocks,
                      bool to_leader);

// Chain reduce to the leader inside the node, ring reduce-scatter + allgather among the
// leaders, chain broadcast from the leader inside the node, over `range`. Non-leaders get
// empty steps while the leaders' ring runs, so every rank has the same number of steps and
// the steps of all ranks match in lockstep. chunk_bytes: as in chain_chunks().
Schedule hier_allreduce(const Dims& dims, int rank, Block range, std::size_t elem_size,
                        std::size_t chunk_bytes);

}  // namespace ddl
