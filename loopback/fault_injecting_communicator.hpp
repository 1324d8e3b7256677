// A decorator over any Communicator that injects faults, for tests of the failure paths:
// drop a chosen send (its receiver then times out with an error naming peer and tag) or delay
// every operation of one kind. Everything else is forwarded unchanged.
#pragma once

#include <chrono>
#include <optional>
#include <thread>

#include "algorithms/communicator.hpp"

namespace ddl {

class FaultInjectingCommunicator : public Communicator {
 public:
  struct Faults {
    // Drop the n-th (0-based) send to (peer, tag); it reports completion but never arrives.
    std::optional<int> drop_peer;
    int drop_tag = 0;
    int drop_nth = 0;
    // Sleep this long before each isend (a slow link or a straggling rank).
    std::chrono::duration<double> send_delay{0};
  };

  FaultInjectingCommunicator(Communicator& inner, Faults faults) : inner_(inner), faults_(faults) {}

  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  double now() override { return inner_.now(); }
  Request isend(int peer, ConstView data, int tag) override {
    if (faults_.send_delay.count() > 0) std::this_thread::sleep_for(faults_.send_delay);
    if (faults_.drop_peer && *faults_.drop_peer == peer && faults_.drop_tag == tag &&
        sends_seen_++ == faults_.drop_nth)
      return {};  // dropped: nothing to wait for on this side
    return inner_.isend(peer, data, tag);
  }
  Request irecv(int peer, MutView data, int tag) override { return inner_.irecv(peer, data, tag); }
  void wait(Request& r) override { inner_.wait(r); }
  void reduce(MutView inout, ConstView in, DType t, ReduceOp op) override {
    inner_.reduce(inout, in, t, op);
  }
  void copy(MutView dst, ConstView src) override { inner_.copy(dst, src); }
  void divide(MutView inout, DType t, std::size_t d) override { inner_.divide(inout, t, d); }
  MutView acquire_scratch(std::size_t bytes) override { return inner_.acquire_scratch(bytes); }
  void release_scratch(MutView s) override { inner_.release_scratch(s); }
  Request compute(double seconds) override { return inner_.compute(seconds); }
  void set_phase(const char* phase, int dimension) override { inner_.set_phase(phase, dimension); }

 private:
  Communicator& inner_;
  Faults faults_;
  int sends_seen_ = 0;
};

}  // namespace ddl
