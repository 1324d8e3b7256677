// Streams as threads (nonblocking.hpp): the loopback backend's and the real backends' (MPI must
// then run at MPI_THREAD_MULTIPLE: each stream calls MPI on its own communicator).
#pragma once

#include <memory>

#include "algorithms/nonblocking.hpp"

namespace ddl {

class ThreadLauncher : public StreamLauncher {
 public:
  std::shared_ptr<StreamTask> launch(std::function<void()> fn) override;
};

}  // namespace ddl
