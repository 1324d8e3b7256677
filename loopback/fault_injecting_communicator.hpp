// A decorator over any Communicator that injects faults, for tests of the failure paths:
// drop a chosen send (its receiver then times out with an error naming peer and tag) or delay
// every operation of one kind. Everything else is forwarded unchanged (ForwardingCommunicator).
// A group split off it is wrapped in an injector of its own that delays its sends alike (a slow
// rank is slow in every group); the drop stays here, where its peer and tag were named and its
// sends are counted.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "algorithms/forwarding_communicator.hpp"

namespace ddl {

class FaultInjectingCommunicator : public ForwardingCommunicator {
 public:
  struct Faults {
    // Drop the n-th (0-based) send to (peer, tag); it reports completion but never arrives.
    std::optional<int> drop_peer;
    int drop_tag = 0;
    int drop_nth = 0;
    // Sleep this long before each isend (a slow link or a straggling rank).
    std::chrono::duration<double> send_delay{0};
  };

  FaultInjectingCommunicator(Communicator& inner, Faults faults)
      : ForwardingCommunicator(inner), faults_(faults) {}
  FaultInjectingCommunicator(std::unique_ptr<Communicator> inner, Faults faults)
      : ForwardingCommunicator(std::move(inner)), faults_(faults) {}

  Request isend(int peer, ConstView data, int tag) override {
    if (faults_.send_delay.count() > 0) std::this_thread::sleep_for(faults_.send_delay);
    if (faults_.drop_peer && *faults_.drop_peer == peer && faults_.drop_tag == tag &&
        sends_seen_++ == faults_.drop_nth)
      return {};  // dropped: nothing to wait for on this side
    return inner_.isend(peer, data, tag);
  }

  std::unique_ptr<Communicator> split(int color, int key) override {
    std::unique_ptr<Communicator> group = inner_.split(color, key);
    if (!group) return nullptr;
    Faults delay_only;
    delay_only.send_delay = faults_.send_delay;
    return std::make_unique<FaultInjectingCommunicator>(std::move(group), delay_only);
  }

 private:
  Faults faults_;
  int sends_seen_ = 0;
};

}  // namespace ddl
