// α-β-γ parameters of a loaded platform, for the analytical model column and for `auto`.
//
// Per dimension d of the grid: the ring neighbours of rank 0's group along d (member i to
// i+1, wrapping), each as SimGrid routes it; α = the largest route latency (sum of its links'
// latencies), β = the largest 1 / (bottleneck bandwidth of the route). A ring step waits for
// its slowest transfer, so the slowest neighbour pair is the one that sets the pace; a group of
// one has α = β = 0. γ = 3 / memory bandwidth of rank 0 (a reduction reads two bytes and writes
// one per result byte), the same cost SimCommunicator::reduce charges. Per-size and peer-read
// factors of a calibrated platform enter only through `footprint` (below). Contention (several
// flows on one link) is not in these numbers: the model column and `auto` add it by pricing
// over the platform's routes (route_topology.hpp, model_plan.hpp). In-switch reduction
// (CostParams::in_switch): rank 0's switch at each level, with the slowest member's route to it
// each way, its reduction rate and chunk (sim/switch_model.hpp).
#pragma once

#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"
#include "sim/platform.hpp"

namespace ddl::sim {

struct RouteCost {
  double latency = 0;    // s, sum over the route's links
  double bandwidth = 0;  // B/s, the route's bottleneck (infinite for an empty route)
};
RouteCost route_cost(const Platform& platform, int src_rank, int dst_rank);

// `footprint` > 0: the costs of one collective of that many bytes on a platform with calibrated
// factors (sim/README.md): CostParams::message costs a message of n bytes by piece_time() (so a
// tree's chunk and a ring's block each get the factors of their own size, and the tables of its
// link class: Platform::message_factors), per_dim holds one
// ring block's (footprint / group size), γ the memory factor at the footprint, peer_read the
// platform's ddl_peer_read_factors (when it has them); the params refer
// to `platform`, which must outlive them. 0: the routes' plain figures at every size (what
// `auto` and the header line use).
CostParams platform_costs(const Platform& platform, const Dims& dims, double footprint = 0);

}  // namespace ddl::sim
