// Streams as SimGrid actors (algorithms/nonblocking.hpp): a started collective runs on an actor
// on the caller's host, so its flows and local work meet the caller's and the other streams' on
// the platform's links and memory as the backend's concurrent operations do.
//
// The actors are kept: a launcher's actor that has run its function waits for the next one, and
// a launch takes a waiting actor before it creates one. An LLM step starts a collective per layer
// and pass on each of a rank's groups; an actor each (its stack an 8 MiB allocation, its guard
// page an mprotect) was half of a 512-GPU step's time. The launcher's destructor lets its waiting
// actors end; one still running ends when its function returns.
#pragma once

#include <memory>

#include "algorithms/nonblocking.hpp"

namespace ddl::sim {

class ActorLauncher : public StreamLauncher {
 public:
  ActorLauncher();
  ~ActorLauncher() override;
  ActorLauncher(const ActorLauncher&) = delete;
  ActorLauncher& operator=(const ActorLauncher&) = delete;

  // Call from an actor: the streams run on its host.
  std::shared_ptr<StreamTask> launch(std::function<void()> fn) override;

  struct Pool;

 private:
  std::shared_ptr<Pool> pool_;
};

}  // namespace ddl::sim
