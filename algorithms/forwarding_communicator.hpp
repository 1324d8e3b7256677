// A Communicator that forwards every call to another one (LevelDB's EnvWrapper idea), the base
// of every decorator: the tracing communicator, the fault injector. A decorator overrides only
// what it changes, and a method added to Communicator is forwarded here once instead of in each
// decorator by hand (where a forgotten one silently falls back to Communicator's default and
// skips the wrapped backend's own). harness/tests/test_forwarding.cpp fails while a virtual of
// Communicator or of a capability is not forwarded here.
//
// The capability accessors are forwarded too, so a decorator hands out the wrapped backend's
// capabilities as they are. One that must see a capability's calls returns its own wrapper of
// it instead, built on ForwardingOneSided below; one that must hide a capability returns nullptr.
//
// wait_all is forwarded as a whole, so a decorator that overrides wait() must override
// wait_all() as well if it needs to see those waits too.
#pragma once

#include <memory>
#include <utility>

#include "algorithms/communicator.hpp"
#include "algorithms/one_sided.hpp"
#include "algorithms/switch_reduction.hpp"

namespace ddl {

class ForwardingCommunicator : public Communicator {
 public:
  explicit ForwardingCommunicator(Communicator& inner) : inner_(inner) {}
  // Wraps and owns: a decorator's wrapper of a group it split off (communicator.hpp, Groups).
  explicit ForwardingCommunicator(std::unique_ptr<Communicator> owned)
      : inner_(*owned), owned_(std::move(owned)) {}

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
  std::size_t wait_any(std::span<Request> rs) override { return inner_.wait_any(rs); }
  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override {
    inner_.reduce(inout, in, type, op);
  }
  void copy(MutView dst, ConstView src) override { inner_.copy(dst, src); }
  void divide(MutView inout, DType type, std::size_t divisor) override {
    inner_.divide(inout, type, divisor);
  }
  MutView acquire_scratch(std::size_t bytes) override { return inner_.acquire_scratch(bytes); }
  void release_scratch(MutView scratch) override { inner_.release_scratch(scratch); }
  Request compute(double seconds) override { return inner_.compute(seconds); }
  void set_phase(const char* phase, int dimension) override { inner_.set_phase(phase, dimension); }
  OneSided* one_sided() override { return inner_.one_sided(); }
  StepPacing* step_pacing() override { return inner_.step_pacing(); }
  SwitchReduction* switch_reduction() override { return inner_.switch_reduction(); }
  NativeLibrary* native_library() override { return inner_.native_library(); }
  std::unique_ptr<Communicator> split(int color, int key) override {
    return inner_.split(color, key);
  }

 protected:
  Communicator& inner_;

 private:
  std::unique_ptr<Communicator> owned_;  // inner_, where this wrapper owns it
};

// The same for the one-sided capability: the base of a decorator's wrapper of it.
class ForwardingOneSided : public OneSided {
 public:
  explicit ForwardingOneSided(OneSided& inner) : inner_(inner) {}

  OneSided& inner() { return inner_; }

  bool shares_memory_with(int peer) const override { return inner_.shares_memory_with(peer); }
  std::size_t eager_limit() const override { return inner_.eager_limit(); }
  MemoryHandle handle(MutView buffer) override { return inner_.handle(buffer); }
  void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override {
    inner_.get(peer, remote, offset, local);
  }
  void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) override {
    inner_.put(peer, remote, offset, local);
  }

 protected:
  OneSided& inner_;
};

// The same for in-switch reduction.
class ForwardingSwitchReduction : public SwitchReduction {
 public:
  explicit ForwardingSwitchReduction(SwitchReduction& inner) : inner_(inner) {}

  SwitchReduction& inner() { return inner_; }

  std::vector<int> switch_domain(int level) const override { return inner_.switch_domain(level); }
  Request switch_collective(int level, SwitchCollective kind, MutView data, DType type,
                            ReduceOp op) override {
    return inner_.switch_collective(level, kind, data, type, op);
  }

 protected:
  SwitchReduction& inner_;
};

}  // namespace ddl
