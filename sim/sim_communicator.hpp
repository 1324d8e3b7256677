// The Communicator of one simulated rank: a SimGrid actor on the host that models its GPU.
//
// Matching: one mailbox per (sender, receiver, tag), so SimGrid's FIFO mailboxes give exactly
// the (peer, tag) FIFO matching the interface promises. Each rank caches the mailboxes it
// uses, so no name is built per message (a rank talks to few peers with few tags).
//
// Modes (SimWorld::payload):
//   timing-only - views carry no data; a message is only its simulated size, whose value
//                 travels in the payload pointer so the receiver can still check it;
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
#pragma once

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/scratch_pool.hpp"
#include "sim/platform.hpp"

namespace ddl::sim {

// What every rank of one simulation shares.
struct SimWorld {
  const Platform* platform = nullptr;
  bool payload = false;
};

class SimCommunicator : public Communicator {
 public:
  SimCommunicator(const SimWorld& world, int rank);
  ~SimCommunicator() override;
  SimCommunicator(const SimCommunicator&) = delete;
  SimCommunicator& operator=(const SimCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  double now() override;

  Request isend(int peer, ConstView data, int tag) override;
  Request irecv(int peer, MutView data, int tag) override;
  void wait(Request& r) override;

  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override;
  void copy(MutView dst, ConstView src) override;
  void divide(MutView inout, DType type, std::size_t divisor) override;
  MutView acquire_scratch(std::size_t bytes) override;
  void release_scratch(MutView scratch) override;
  Request compute(double seconds) override;

 private:
  enum class Kind : std::uint8_t { free, send, recv, exec };
  struct Slot {
    simgrid::s4u::ActivityPtr activity;
    void* received = nullptr;  // the receive's landing spot for the payload pointer
    MutView target;            // receive: where the bytes belong
    int peer = -1;
    int tag = 0;
    std::uint32_t generation = 0;
    Kind kind = Kind::free;
  };

  simgrid::s4u::Mailbox* mailbox(int src, int dst, int tag);
  void check_peer(int peer, const char* op) const;
  Request take_slot(Kind kind, int peer, int tag, Slot*& slot);
  Slot& slot_of(const Request& r);
  void finish_recv(Slot& s);
  void spend_memory_time(double bytes_touched, std::size_t op_bytes);

  const SimWorld& world_;
  const int rank_;
  const int size_;
  const double memory_bandwidth_;
  std::unordered_map<std::uint64_t, simgrid::s4u::Mailbox*> mailboxes_;
  std::deque<Slot> slots_;  // a deque: get_async keeps a pointer into a slot
  std::vector<std::uint32_t> free_slots_;
  ScratchPool pool_;  // payload mode: grow-only scratch
};

}  // namespace ddl::sim
