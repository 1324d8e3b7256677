// Streams as SimGrid actors (algorithms/nonblocking.hpp): a started collective is an actor on
// the caller's host, so its flows and local work meet the caller's and the other streams' on
// the platform's links and memory as the backend's concurrent operations do.
#pragma once

#include <memory>

#include "algorithms/nonblocking.hpp"

namespace ddl::sim {

class ActorLauncher : public StreamLauncher {
 public:
  // Call from an actor: the streams run on its host.
  std::shared_ptr<StreamTask> launch(std::function<void()> fn) override;
};

}  // namespace ddl::sim
