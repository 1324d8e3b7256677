#include "sim/actor_streams.hpp"

#include <exception>
#include <mutex>
#include <simgrid/s4u.hpp>
#include <vector>

namespace ddl::sim {

namespace {

// One started function's outcome. Actors run one at a time in one thread: the state needs no
// lock, only a condition variable to block a waiting actor (SimGrid's, which lets simulated time
// pass). The actor shares the state, so a handle dropped before its collective ends leaves
// nothing dangling.
struct TaskState {
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr finished = simgrid::s4u::ConditionVariable::create();
  bool done = false;
  std::exception_ptr error;
};

class ActorTask : public StreamTask {
 public:
  explicit ActorTask(std::shared_ptr<TaskState> state) : state_(std::move(state)) {}

  bool done() override { return state_->done; }

  void wait() override {
    std::unique_lock<simgrid::s4u::Mutex> lock(*state_->mutex);
    state_->finished->wait(lock, [this] { return state_->done; });
    if (state_->error) std::rethrow_exception(state_->error);
  }

 private:
  std::shared_ptr<TaskState> state_;
};

// An actor of the pool and the function it is given.
struct Worker {
  simgrid::s4u::ConditionVariablePtr wake = simgrid::s4u::ConditionVariable::create();
  std::function<void()> job;  // empty while it waits
  std::shared_ptr<TaskState> task;
};

}  // namespace

struct ActorLauncher::Pool {
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
  std::vector<std::shared_ptr<Worker>> idle;
  bool closed = false;
};

namespace {

// A worker's life: run what it is given, then wait among the idle for more, until the launcher
// closes. Only std::exception is caught: SimGrid's kill unwinds with a type outside that
// hierarchy and must pass.
void work(const std::shared_ptr<ActorLauncher::Pool>& pool, const std::shared_ptr<Worker>& me) {
  std::unique_lock<simgrid::s4u::Mutex> lock(*pool->mutex);
  while (true) {
    me->wake->wait(lock, [&] { return me->job || pool->closed; });
    if (!me->job) return;
    const std::function<void()> job = std::move(me->job);
    const std::shared_ptr<TaskState> task = std::move(me->task);
    me->job = nullptr;
    lock.unlock();
    try {
      job();
    } catch (const std::exception&) {
      task->error = std::current_exception();
    }
    {
      const std::unique_lock<simgrid::s4u::Mutex> done(*task->mutex);
      task->done = true;
      task->finished->notify_all();
    }
    lock.lock();
    if (pool->closed) return;
    pool->idle.push_back(me);
  }
}

}  // namespace

ActorLauncher::ActorLauncher() : pool_(std::make_shared<Pool>()) {}

ActorLauncher::~ActorLauncher() {
  const std::unique_lock<simgrid::s4u::Mutex> lock(*pool_->mutex);
  pool_->closed = true;
  for (const std::shared_ptr<Worker>& w : pool_->idle) w->wake->notify_all();
  pool_->idle.clear();
}

std::shared_ptr<StreamTask> ActorLauncher::launch(std::function<void()> fn) {
  auto task = std::make_shared<TaskState>();
  const std::unique_lock<simgrid::s4u::Mutex> lock(*pool_->mutex);
  std::shared_ptr<Worker> worker;
  if (pool_->idle.empty()) {
    worker = std::make_shared<Worker>();
    simgrid::s4u::Actor::create(simgrid::s4u::this_actor::get_name() + "-stream",
                                simgrid::s4u::this_actor::get_host(),
                                [pool = pool_, worker] { work(pool, worker); });
  } else {
    worker = pool_->idle.back();
    pool_->idle.pop_back();
  }
  worker->job = std::move(fn);
  worker->task = task;
  worker->wake->notify_all();
  return std::make_shared<ActorTask>(std::move(task));
}

}  // namespace ddl::sim
