// A decorator that records every operation of the Communicator it wraps as a TraceEvent, for
// any backend (loopback, simulator, MPI, CUDA) without the backend knowing. Everything is
// forwarded unchanged (ForwardingCommunicator); the decorator only reads the clock around
// each call. Where the backend has one-sided access, the decorator hands out its own wrapper of
// it, which traces get and put the same way; it offers no step pacing (a trace shows every
// operation, so no step of a traced run is extrapolated away). In-switch reduction is handed out
// as the backend has it (ForwardingCommunicator): the switch's transfers are no rank's messages,
// so a traced nvls shows only its rings and local work.
//
// Groups: split wraps the child in a tracer of its own, which keeps its own events (take them
// from it as from this one) with the current context, and records ranks and peers as world
// ranks, so a group's events merge with the world's into one trace of the same schema. It
// learns them by an exchange over the child right after the split (every member sends its world
// rank to every other, untraced): the data must move, so a timing-only simulation, whose
// messages carry none, cannot trace a group (InvalidArgument), and on the simulator the exchange
// costs the simulated time of those messages.
//
// Timing: a send, receive or compute starts when it is posted and ends when its wait returns
// (so `end` is when this rank learned of the completion, never earlier than the completion
// itself); reduce, copy, divide, get and put start and end around the inner call. Events are kept
// in posting order. One decorator per rank and per thread: nothing here is locked.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/forwarding_communicator.hpp"
#include "harness/trace.hpp"

namespace ddl::harness {

class TracingCommunicator : public ForwardingCommunicator {
 public:
  // Recorded times are (inner.now() + clock_offset_s) in microseconds: 0 on the simulator,
  // on real backends the offset that maps this rank's clock onto the common time base.
  explicit TracingCommunicator(Communicator& inner, double clock_offset_s = 0);
  // A group's tracer, owning the group; world_ranks: each group rank's rank in the world.
  TracingCommunicator(std::unique_ptr<Communicator> group, double clock_offset_s,
                      std::vector<int> world_ranks);
  // The one-sided wrapper refers back to this object.
  TracingCommunicator(const TracingCommunicator&) = delete;
  TracingCommunicator& operator=(const TracingCommunicator&) = delete;

  // Which collective run the following events belong to; also clears the phase annotation.
  void set_context(const std::string& algo, std::size_t size, int iteration);
  const std::vector<TraceEvent>& events() const { return events_; }
  // The events recorded so far (operations still in flight are not among them).
  std::vector<TraceEvent> take_events();

  Request isend(int peer, ConstView data, int tag) override;
  Request irecv(int peer, MutView data, int tag) override;
  void wait(Request& r) override;
  void wait_all(std::span<Request> rs) override;
  std::size_t wait_any(std::span<Request> rs) override;
  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override;
  void copy(MutView dst, ConstView src) override;
  void divide(MutView inout, DType type, std::size_t divisor) override;
  Request compute(double seconds) override;
  void set_phase(const char* phase, int dimension) override;
  OneSided* one_sided() override { return one_sided_ ? &*one_sided_ : nullptr; }
  StepPacing* step_pacing() override { return nullptr; }
  std::unique_ptr<Communicator> split(int color, int key) override;

 private:
  // The wrapped backend's one-sided access, its copies recorded as get and put events.
  class TracedOneSided : public ForwardingOneSided {
   public:
    TracedOneSided(OneSided& inner, TracingCommunicator& tracer)
        : ForwardingOneSided(inner), tracer_(tracer) {}
    void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override;
    void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) override;

   private:
    TracingCommunicator& tracer_;
  };

  // Rounded to 1 ps: finer than any clock here, and the files then show short decimals
  // instead of the binary noise of the seconds-to-microseconds product.
  double stamp_us() { return std::round((inner_.now() + offset_s_) * 1e12) / 1e6; }
  TraceEvent& begin(TraceKind kind, int peer, std::size_t bytes, int tag);
  // An event that starts and ends around `call` (local work, one-sided copies).
  template <class Call>
  void around(TraceKind kind, int peer, std::size_t bytes, Call&& call) {
    const std::size_t index = events_.size();
    begin(kind, peer, bytes, -1);
    call();
    events_[index].end_us = stamp_us();
  }
  // A rank of the inner communicator as a world rank; -1 (local work) stays -1.
  int world_rank(int rank) const {
    return rank < 0 || world_ranks_.empty() ? rank : world_ranks_[static_cast<std::size_t>(rank)];
  }
  // Keeps the event open until its request is waited; a null request completed already.
  Request track(Request r);

  const double offset_s_;
  const std::vector<int> world_ranks_;  // by rank of the inner communicator; empty: the world
  std::string algo_;
  std::size_t size_ = 0;
  int iteration_ = 0;
  std::string phase_;
  int dimension_ = -1;
  std::vector<TraceEvent> events_;
  std::unordered_map<std::uint64_t, std::size_t> open_;  // request id -> index in events_
  std::optional<TracedOneSided> one_sided_;              // where the backend has one-sided access
};

}  // namespace ddl::harness
