// The three numbers of the α-β-γ model, per link class. Kept apart from cost_model.hpp so
// Options can carry them (the `auto` algorithm and the model column read them).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <vector>

namespace ddl {

struct LinkCost {
  double alpha = 0;  // s
  double beta = 0;   // s per byte
  // Ranks that differ in this class reach each other's memory (OneSided::get/put): the
  // ranks of one node. `auto` weighs `direct` only where every class is.
  bool shared_memory = false;
  // Messages of at least this many bytes go by rendezvous: the send completes only after the
  // receiver has matched it, copied it and acknowledged it, one more α than an eager message
  // (Open MPI's shared-memory transport above its eager limit, OneSided::eager_limit).
  // 0: every message pays α once.
  std::size_t rendezvous_bytes = 0;

  // α of one message of `bytes`.
  double latency(double bytes) const {
    return rendezvous_bytes != 0 && bytes >= static_cast<double>(rendezvous_bytes) ? 2 * alpha
                                                                                   : alpha;
  }
};

// A switch that reduces (switch_reduction.hpp), as one member reaches it: the route's latency and
// 1 / bottleneck bandwidth (the slowest member's, each way), the switch's time per byte it
// reduces (1 / its reduction rate, over every member's input), the chunk it works in, and how
// many members it serves. members = 0: no such switch.
struct SwitchCost {
  double alpha = 0;        // s
  double beta = 0;         // s per byte
  double reduce_beta = 0;  // s per input byte
  std::size_t chunk_bytes = 0;
  int members = 0;
};

struct CostParams {
  // One entry per dimension of the grid (innermost first). A message between two ranks uses
  // the class of the outermost dimension in which they differ (schedule_cost.hpp).
  std::vector<LinkCost> per_dim;
  double gamma = 0;  // s per reduced byte
  // By SwitchLevel (switch_reduction.hpp): the node's switch, the network's. Unset: none, and
  // the algorithms that need one cost +inf (auto never picks them).
  std::array<SwitchCost, 2> in_switch{};
  // Optional: the link cost of one message of `bytes` on dimension `dim`, where it depends on
  // the message's size (a calibrated platform's per-size factors: a tree's chunk and a ring's
  // block do not cost alike). Unset: per_dim[dim] at every size.
  std::function<LinkCost(int dim, double bytes)> message;
  // Optional: how many times its own time a message of `bytes` from rank `src` to rank `dst`
  // takes when it lands in bytes the receiver last sent (a calibrated platform's
  // ddl_peer_read_factors, measured inside a node: a cache effect of shared memory, so 1 for a
  // message between nodes): an allreduce's second half receives into what its first half sent.
  // Unset: 1.
  std::function<double(int src, int dst, double bytes)> peer_read;
};

}  // namespace ddl
