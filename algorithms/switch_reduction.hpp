// In-switch reduction: switches that reduce the data passing through them. NVLink SHARP (NVLS)
// in a node's third-generation NVSwitch, SHARP aggregation trees in InfiniBand switches across
// nodes. A capability of some backends (Communicator::switch_reduction(), nullptr where there is
// none): the simulator offers it where the platform describes such switches; MPI, CUDA and
// loopback have none, and `nvls` / `sharp` refuse to run there by name.
//
// A domain is the set of ranks one switch serves at one level: the GPUs of a node at
// kNodeSwitch, the GPUs on one rail (one NIC per node, the same local index) at kNetworkSwitch.
// Each member sends its bytes to the switch once, the switch reduces them at line rate and sends
// the result back, chunk by chunk, so a member's link carries S up and S down instead of a
// ring's 2 (p-1)/p S each way with a reduction per step on the GPU.
//
// The collective is non-blocking: every member of the domain calls switch_collective with the
// same kind, byte count, dtype and op, in the same order as the other members (the k-th call of
// each member forms the k-th operation), and waits for the returned request with
// Communicator::wait. The buffer must not be touched until then. In payload mode the switch
// really reduces the bytes (results are exact); with null views it only costs time.
#pragma once

#include <vector>

#include "algorithms/communicator.hpp"

namespace ddl {

// The levels of in-switch reduction.
enum SwitchLevel : int {
  kNodeSwitch = 0,     // the node's switch (NVLS): the GPUs of one node
  kNetworkSwitch = 1,  // the network's switches (SHARP): one GPU per node, those on one rail
};
inline constexpr int kSwitchLevels = 2;
const char* to_string(SwitchLevel level);

// What the switch computes, over blocks = partition(count, members, elem) by member index:
//   allreduce      - every member sends all, receives all, reduced;
//   reduce_scatter - every member sends all, receives its own block reduced;
//   allgather      - every member sends its own block, receives every block (multicast).
enum class SwitchCollective { allreduce, reduce_scatter, allgather };

class SwitchReduction {
 public:
  virtual ~SwitchReduction() = default;

  // The ranks that share this rank's domain at `level` (a SwitchLevel), ascending, this rank
  // among them; empty where it has no in-switch reduction at that level.
  virtual std::vector<int> switch_domain(int level) const = 0;
  // One collective of the domain through its switch (see above). `op` must not be avg (reduce
  // with sum and divide afterwards). InvalidArgument where the rank has no domain at `level`;
  // the wait throws where members disagree on kind, bytes, dtype or op.
  virtual Request switch_collective(int level, SwitchCollective kind, MutView data, DType type,
                                    ReduceOp op) = 0;
};

}  // namespace ddl
