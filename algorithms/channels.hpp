// Channels (NCCL's word): rings over every rank side by side, each on its own slice of the
// buffer and in its own order, so that each crosses between nodes through its own NIC.
//
// Nodes are the blocks of `node_size` consecutive ranks (the grid's innermost dimension). In
// channel c the ranks of every node come in the order c, c+1, ..., c-1 (mod node_size): the
// ring enters node n at its GPU c and leaves it from its GPU c-1 towards GPU c of node n+1.
// Over node_size channels every GPU is where one channel enters its node and where one leaves
// it, so with a NIC per GPU (DGX) or NICs shared evenly by a node's GPUs (S822LC: two GPUs per
// NIC) every NIC sends one channel's share and receives one: the rings use all of a node's
// network bandwidth where one ring uses one NIC's. On a rail-optimised network the step from
// GPU c-1 of node n to GPU c of node n+1 crosses node n's fabric to NIC c and then rail c
// (the platform's routes, NCCL's PXN). More channels than GPUs reuse the orders (c mod
// node_size), as NCCL runs two channels per NIC.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/ring_steps.hpp"

namespace ddl {

// Every rank in channel c's order (above), for `ranks` ranks in nodes of `node_size`.
std::vector<int> channel_order(int ranks, int node_size, int channel);

// The lanes of `channels` rings for rank `me` over a buffer of `count` elements: channel c
// runs on block c of partition(count, channels) in channel c's order. Throws InvalidArgument
// for channels < 1 or a node size that does not divide the ranks.
std::vector<RingLane> channel_lanes(int ranks, int node_size, int channels, int me,
                                    std::size_t count, std::size_t elem_size);

}  // namespace ddl
