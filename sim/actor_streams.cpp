#include "sim/actor_streams.hpp"

#include <exception>
#include <mutex>
#include <simgrid/s4u.hpp>

namespace ddl::sim {

namespace {

// Actors run one at a time in one thread: the state needs no lock, only a condition variable to
// block a waiting actor (SimGrid's, which lets simulated time pass). The actor shares the state,
// so a handle dropped before its collective ends leaves nothing dangling. Only std::exception is
// caught: SimGrid's kill unwinds with a type outside that hierarchy and must pass.
class ActorTask : public StreamTask {
 public:
  explicit ActorTask(std::function<void()> fn) : state_(std::make_shared<State>()) {
    simgrid::s4u::Actor::create(simgrid::s4u::this_actor::get_name() + "-stream",
                                simgrid::s4u::this_actor::get_host(),
                                [state = state_, fn = std::move(fn)] {
                                  try {
                                    fn();
                                  } catch (const std::exception&) {
                                    state->error = std::current_exception();
                                  }
                                  const std::unique_lock<simgrid::s4u::Mutex> lock(*state->mutex);
                                  state->done = true;
                                  state->finished->notify_all();
                                });
  }

  bool done() override { return state_->done; }

  void wait() override {
    std::unique_lock<simgrid::s4u::Mutex> lock(*state_->mutex);
    state_->finished->wait(lock, [this] { return state_->done; });
    if (state_->error) std::rethrow_exception(state_->error);
  }

 private:
  struct State {
    simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
    simgrid::s4u::ConditionVariablePtr finished = simgrid::s4u::ConditionVariable::create();
    bool done = false;
    std::exception_ptr error;
  };
  std::shared_ptr<State> state_;
};

}  // namespace

std::shared_ptr<StreamTask> ActorLauncher::launch(std::function<void()> fn) {
  return std::make_shared<ActorTask>(std::move(fn));
}

}  // namespace ddl::sim
