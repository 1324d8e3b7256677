// Switches that reduce (algorithms/switch_reduction.hpp) on the simulator: NVLink SHARP in a
// node's NVSwitch, SHARP in the InfiniBand switches.
//
// The platform gives each such switch a host of its own, joined to the switch's router by a link
// that is never the bottleneck (the generator writes a FATPIPE of 1 PB/s and no latency), and
// properties on that host (calibrate/platform_properties.hpp): ddl_switch_level (0 the node's
// switch, 1 the network's), ddl_switch_members (the ranks it serves, "0,1,2,3"),
// ddl_switch_reduce_rate (input bytes it reduces per second: its own limit) and
// ddl_switch_chunk (the bytes it works on at a time). The host carries no ddl_rank: it runs no
// rank, only the switch's actor.
//
// A collective starts once every member has called switch_collective (the k-th call of each
// member is the k-th operation of the switch, as FIFO matching of messages). An actor on the
// switch's host then plays algorithms/switch_chunks.hpp's timeline: each chunk goes up as one
// transfer per sending member from its GPU host to the switch's host (Comm::sendto_async: the
// GPU's link to the switch carries it, as a GPU's store into the switch would), is reduced for
// members x bytes / rate (a sleep: the switch's own limit, apart from the links), and goes down
// as one transfer per receiving member. In payload mode the switch reads each member's chunk
// from its buffer when it is up and writes the result into each receiver's buffer when it is
// down (every rank is an actor of this process), so results are exact.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "algorithms/switch_reduction.hpp"

namespace ddl::sim {

struct SwitchDomain {
  int level = 0;                       // a SwitchLevel
  simgrid::s4u::Host* host = nullptr;  // the switch's
  std::vector<int> members;            // ranks, ascending
  double reduce_rate = 0;              // input bytes/s
  std::size_t chunk_bytes = 0;         // > 0
};

// The platform's switches, read from the hosts that carry ddl_switch_level; `gpus` are the GPU
// hosts by rank. Throws InvalidArgument naming the host and property for a level other than 0
// or 1, members that are no ranks or repeat, a rank served by two switches of one level, a rate
// that is no bandwidth, a chunk that is no positive byte count, or a member whose GPU host has
// no route to the switch's host.
std::vector<SwitchDomain> read_switch_domains(simgrid::s4u::Engine& engine,
                                              const std::vector<simgrid::s4u::Host*>& gpus,
                                              const std::string& file);
// Whether a host is a switch's (carries ddl_switch_level).
bool is_switch_host(const simgrid::s4u::Host* host);

// One collective of one switch, as its members join it.
struct SwitchOp {
  SwitchCollective kind = SwitchCollective::allreduce;
  std::size_t bytes = 0;
  DType type = DType::float32;
  ReduceOp op = ReduceOp::sum;
  std::vector<void*> buffers;  // by member index; null in timing-only mode
  int joined = 0;
  std::string error;  // members that disagree: every member's wait throws it
  bool done = false;
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr finished = simgrid::s4u::ConditionVariable::create();
};

// What the ranks of one simulation share about one switch: its operations in flight, by index.
struct SwitchState {
  std::map<std::uint64_t, std::shared_ptr<SwitchOp>> ops;
  std::vector<std::uint64_t> calls;  // by member index: how many collectives it has called
};

// Joins member `member` (its index in the domain) to its next collective on `domain`; starts the
// switch's actor once all have joined. Returns the operation to wait for (wait_switch_op).
std::shared_ptr<SwitchOp> join_switch_op(const SwitchDomain& domain, SwitchState& state, int member,
                                         SwitchCollective kind, MutView data, DType type,
                                         ReduceOp op, bool payload,
                                         const std::vector<simgrid::s4u::Host*>& gpus);
// Blocks the calling actor until the operation is done; throws InvalidArgument with its error.
void wait_switch_op(SwitchOp& op);

}  // namespace ddl::sim
