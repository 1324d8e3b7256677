// A group's own grid: how a group split off the machine (Communicator::split) learns its place in
// the topology, so topology-aware algorithms (ddl's grid, hier, ring:channels) run inside it with
// options.dims = group_grid(machine, members).
//
// The members, as sorted world ranks, form a sub-grid of the machine's grid when they are the
// Cartesian product of one set of coordinates per machine dimension: then the group's grid has
// one dimension per machine dimension it spans (the size of that coordinate set), innermost
// first, and dimensions of extent 1 are dropped. On an 8x4 machine (8 GPUs per node, 4 nodes):
//   0..7 (a node's tensor-parallel group)         -> 8
//   0,8,16,24 (a data-parallel group, stride 8)   -> 4
//   0..3 (half a node)                            -> 4
//   0,1,8,9,16,17,24,25 (pairs in every node)     -> 2x4
// Any other set (0,1,2,8) is no grid: the flat grid of its size. The group's ranks must be in the
// members' order (split with key = world rank), which is the sub-grid's rank order with the
// innermost dimension fastest, as in the machine's.
#pragma once

#include <vector>

#include "algorithms/dims.hpp"

namespace ddl {

// Throws InvalidArgument for no members, members not strictly increasing or outside the machine.
Dims group_grid(const Dims& machine, const std::vector<int>& members);

}  // namespace ddl
