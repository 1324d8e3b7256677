// The Communicator of one simulated rank: a SimGrid actor on the host that models its GPU.
//
// Matching: one mailbox per (sender, receiver, tag), so SimGrid's FIFO mailboxes give exactly
// the (peer, tag) FIFO matching the interface promises. Each rank caches the mailboxes it
// uses, so no name is built per message (a rank talks to few peers with few tags).
//
// Modes (SimWorld::payload):
//   timing-only - views carry no data (null, or scratch ranges of no memory, below); a
//                 message is only its simulated size, whose value travels in the payload
//                 pointer so the receiver can still check it;
//   payload     - the sender copies its bytes into a message block at isend (so the send
//                 buffer is free again however SimGrid orders the wake-ups) and the receiver
//                 copies them out when its wait completes. Results are bit-exact.
// A receive whose size differs from the matching send's is an error in both modes.
//
// Local work costs simulated time on the rank's GPU, bound by its memory bandwidth M:
//   reduce(n bytes) = 3n / M  (reads inout and in, writes inout)
//   copy(n bytes)   = 2n / M  (reads src, writes dst)
//   divide(n bytes) = 2n / M  (reads and writes inout)
// where M is the host's memory_bandwidth times the platform's memory factor for n (1 when the
// platform has no ddl_memory_factors): throughput on a real machine depends on the size.
// as a sleep of the acting rank: memory traffic, not flops, so it does not share the host's
// CPU model with compute(). compute(s) is an Exec of s * host speed flops.
//
// One-sided access (get/put) between the GPUs of one node (the platform's ddl_node; none without
// places): a SimGrid communication of the bytes from the host that holds them to the other, with
// no actor on the far side, as a GPU's copy over NVLink from a peer's memory (CUDA IPC); payload
// mode also copies the bytes. A put does not take the bytes out of the peer's peer-read set.
// Given platform figures never mark a link class as shared memory (LinkCost::shared_memory), so
// `auto` does not choose `direct` here; `--algo direct` runs it.
//
// In-switch reduction (algorithms/switch_reduction.hpp): the platform's switches that reduce
// (sim/switch_model.hpp); every rank's switch_domain is empty on a platform without them.
//
// Step extrapolation (sim/step_extrapolation.hpp): the rank's SimStepPacing, offered as
// step_pacing() only where the platform allows it, in timing-only mode.
//
// Groups (split): a child is a rank table (group rank -> world rank) over the same SimWorld. The
// platform is indexed by world rank throughout (hosts, routes, memory bandwidth, places), so a
// peer given as a group rank is translated once, where it enters (isend, irecv, get, put,
// shares_memory_with). A child's mailboxes carry its communicator id in their names
// ("ddl:g<id>:src>dst#tag"), so its messages never meet the parent's or a sibling group's with
// the same tag. Ids are allocated in the shared state per (parent id, the parent's split count,
// color), the same on every member since split is collective. split's exchange of (color, key)
// goes through the shared state as well (actors run one at a time, so no lock), behind a SimGrid
// barrier over the parent's ranks: it costs no simulated time, and a split therefore aligns the
// parent's ranks in time as a barrier would. A child paces its steps (step_pacing) with run
// records of its own, so its runs are never confused with the world's. It has no in-switch
// reduction (nullptr): a switch reduces over every world rank of its domain and matches their
// operations by arrival, without a communicator, so a group's switch collective would wait for
// ranks outside it or cross-match with the parent's.
//
// Receives into bytes the rank last sent (platform ddl_peer_read_factors, see platform.hpp;
// the peer-read rule of algorithms/step_semantics.hpp, which the cost model prices alike): the
// rank keeps the set of bytes it has sent from and not written since (a receive, reduce, copy
// or divide into them, or note_written, takes them out). A receive of n bytes of which a share
// s lands in that set is capped at the rate that makes it (1 + (f(n) - 1) s) times its time
// alone into its own bytes (latency + transfer as piece_time() costs them), f the platform's
// factor. Buffers need an identity for this even in timing-only mode, so scratch
// there is address ranges of no memory (never dereferenced); null views are never in the set.
// Platforms without the property keep no set at all.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <simgrid/s4u.hpp>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/one_sided.hpp"
#include "algorithms/scratch_pool.hpp"
#include "algorithms/step_semantics.hpp"
#include "algorithms/switch_reduction.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/step_extrapolation.hpp"

namespace ddl::sim {

// A rate cap a receive asks of its message travels with whichever side posts last: SimGrid
// keeps the rate of the communication that was queued first (measured, 3.32), so a receive
// posted before its send leaves its cap here for the send, in the mailbox's FIFO order.
struct PendingCaps {
  std::uint64_t sends = 0, recvs = 0;  // posted so far on one mailbox
  std::deque<double> caps;             // of receives posted before their sends, oldest first
};

// What the ranks of one simulation share for their groups (see SimCommunicator: groups).
struct SimGroups {
  // One split in progress: every rank's (color, key) by its rank in the parent.
  struct Exchange {
    simgrid::s4u::BarrierPtr barrier;
    std::vector<std::array<int, 2>> color_key;
    // By color: split_members' list, made once per color and shared by its members.
    std::map<int, std::shared_ptr<const std::vector<int>>> members;
    int readers_left = 0;  // the last rank to read the table removes it
  };
  std::map<std::pair<std::uint64_t, std::uint64_t>, Exchange> exchanges;       // (parent id, split)
  std::map<std::tuple<std::uint64_t, std::uint64_t, int>, std::uint64_t> ids;  // + color
  std::unordered_map<std::uint64_t, RunRecords> runs;  // each group's, by id
  // 0..p-1, the world communicator's members, made by the first rank and shared by all (a list
  // per rank would be p^2 ints: 1 GB at 16,384 ranks).
  std::shared_ptr<const std::vector<int>> world_members;
};

// What every rank of one simulation shares.
struct SimWorld {
  const Platform* platform = nullptr;
  bool payload = false;
  // Only used on platforms with ddl_peer_read_factors. Actors run one at a time: no lock.
  std::shared_ptr<std::unordered_map<simgrid::s4u::Mailbox*, PendingCaps>> pending_caps =
      std::make_shared<std::unordered_map<simgrid::s4u::Mailbox*, PendingCaps>>();
  std::shared_ptr<RunRecords> runs = std::make_shared<RunRecords>();
  // By index in platform->switches, grown on first use.
  std::shared_ptr<std::vector<SwitchState>> switches = std::make_shared<std::vector<SwitchState>>();
  std::shared_ptr<SimGroups> groups = std::make_shared<SimGroups>();
};

class SimCommunicator : public Communicator, public OneSided, public SwitchReduction {
 public:
  // Rank `rank` of the whole world.
  SimCommunicator(const SimWorld& world, int rank);
  ~SimCommunicator() override;
  SimCommunicator(const SimCommunicator&) = delete;
  SimCommunicator& operator=(const SimCommunicator&) = delete;

  int rank() const override { return group_rank_; }
  int size() const override { return size_; }
  double now() override;

  Request isend(int peer, ConstView data, int tag) override;
  Request irecv(int peer, MutView data, int tag) override;
  void wait(Request& r) override;
  std::size_t wait_any(std::span<Request> rs) override;

  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override;
  void copy(MutView dst, ConstView src) override;
  void divide(MutView inout, DType type, std::size_t divisor) override;
  MutView acquire_scratch(std::size_t bytes) override;
  void release_scratch(MutView scratch) override;
  Request compute(double seconds) override;
  OneSided* one_sided() override { return this; }
  StepPacing* step_pacing() override { return extrapolate_ ? &pacing_ : nullptr; }
  SwitchReduction* switch_reduction() override { return id_ == 0 ? this : nullptr; }
  std::unique_ptr<Communicator> split(int color, int key) override;

  bool shares_memory_with(int peer) const override;
  std::size_t eager_limit() const override { return 0; }  // no transport: nothing to report
  MemoryHandle handle(MutView buffer) override;
  void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override;
  void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) override;

  std::vector<int> switch_domain(int level) const override;
  Request switch_collective(int level, SwitchCollective kind, MutView data, DType type,
                            ReduceOp op) override;

  // The rank has written `data` outside the communicator (the sweep's input before each
  // iteration, as --check's fill on a real machine or a backward pass in training): none of
  // it was last read by a peer any more.
  void note_written(ConstView data);

 private:
  enum class Kind : std::uint8_t { free, send, recv, exec, switch_op };
  struct Slot {
    simgrid::s4u::ActivityPtr activity;
    void* received = nullptr;             // the receive's landing spot for the payload pointer
    MutView target;                       // receive: where the bytes belong
    std::shared_ptr<SwitchOp> switch_op;  // an in-switch collective's, instead of an activity
    int peer = -1;
    int tag = 0;
    std::uint32_t generation = 0;
    Kind kind = Kind::free;
  };

  SimCommunicator(const SimWorld& world, std::uint64_t id,
                  std::shared_ptr<const std::vector<int>> members, int group_rank);
  // src and dst are world ranks.
  simgrid::s4u::Mailbox* mailbox(int src, int dst, int tag);
  // Checks a peer given as a rank of this communicator and returns its world rank.
  int check_peer(int peer, const char* op) const;
  Request take_slot(Kind kind, int peer, int tag, Slot*& slot);
  Slot& slot_of(const Request& r);
  void finish_recv(Slot& s);
  // get (bytes from the peer's buffer into `local`) or put (the other way).
  void remote_copy(bool is_get, int peer, const MemoryHandle& remote, std::size_t offset,
                   void* local, std::size_t bytes);
  void spend_memory_time(double bytes_touched, std::size_t op_bytes);
  double peer_read_rate(int peer, std::size_t bytes, double share);
  void written(const void* data, std::size_t bytes);
  void* fake_range(std::size_t bytes);

  const SimWorld& world_;
  const std::uint64_t id_;                                 // 0: the world
  const std::shared_ptr<const std::vector<int>> members_;  // group rank -> world rank
  const int group_rank_;
  const int rank_;  // in the world: the platform's index of this rank
  const int size_;
  std::uint64_t splits_ = 0;  // splits made of this communicator so far (the same on every rank)
  const double memory_bandwidth_;
  std::unordered_map<std::uint64_t, simgrid::s4u::Mailbox*> mailboxes_;
  std::deque<Slot> slots_;  // a deque: get_async keeps a pointer into a slot
  std::vector<std::uint32_t> free_slots_;
  ScratchPool pool_;             // payload mode: memory; timing-only: address ranges of no memory
  std::uintptr_t next_address_;  // timing-only: where the next scratch range starts
  const bool track_peer_read_;
  const bool extrapolate_;
  SimStepPacing pacing_;
  ByteRanges sent_;                            // sent from, not written since
  std::unordered_map<int, RouteCost> routes_;  // from each peer to this rank
};

}  // namespace ddl::sim
