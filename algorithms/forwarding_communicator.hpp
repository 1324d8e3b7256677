// A Communicator that forwards every call to another one (LevelDB's EnvWrapper idea), the base
// of every decorator: the tracing communicator, the fault injector. A decorator overrides only
// what it changes, and a method added to Communicator is forwarded here once instead of in each
// decorator by hand (where a forgotten one silently falls back to Communicator's default and
// skips the wrapped backend's own).
//
// wait_all is forwarded as a whole, so a decorator that overrides wait() must override
// wait_all() as well if it needs to see those waits too.
#pragma once

#include "algorithms/communicator.hpp"

namespace ddl {

class ForwardingCommunicator : public Communicator {
 public:
  explicit ForwardingCommunicator(Communicator& inner) : inner_(inner) {}

  Communicator& inner() { return inner_; }

  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  double now() override { return inner_.now(); }
  Request isend(int peer, ConstView data, int tag) override {
    return inner_.isend(peer, data, tag);
  }
  Request irecv(int peer, MutView data, int tag) override { return inner_.irecv(peer, data, tag); }
  void wait(Request& r) override { inner_.wait(r); }
  void wait_all(std::span<Request> rs) override { inner_.wait_all(rs); }
  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override {
    inner_.reduce(inout, in, type, op);
  }
  void copy(MutView dst, ConstView src) override { inner_.copy(dst, src); }
  void divide(MutView inout, DType type, std::size_t divisor) override {
    inner_.divide(inout, type, divisor);
  }
  MutView acquire_scratch(std::size_t bytes) override { return inner_.acquire_scratch(bytes); }
  void release_scratch(MutView scratch) override { inner_.release_scratch(scratch); }
  bool shares_memory_with(int peer) const override { return inner_.shares_memory_with(peer); }
  MemoryHandle handle(MutView buffer) override { return inner_.handle(buffer); }
  void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override {
    inner_.get(peer, remote, offset, local);
  }
  void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) override {
    inner_.put(peer, remote, offset, local);
  }
  std::size_t eager_limit() const override { return inner_.eager_limit(); }
  Request compute(double seconds) override { return inner_.compute(seconds); }
  void set_phase(const char* phase, int dimension) override { inner_.set_phase(phase, dimension); }
  bool extrapolates_steps() const override { return inner_.extrapolates_steps(); }
  void begin_alike_run(std::size_t length) override { inner_.begin_alike_run(length); }
  bool alike_step_done(std::size_t left) override { return inner_.alike_step_done(left); }

 protected:
  Communicator& inner_;
};

}  // namespace ddl
