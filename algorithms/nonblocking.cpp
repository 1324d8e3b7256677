#include "algorithms/nonblocking.hpp"

#include "algorithms/error.hpp"
#include "algorithms/forwarding_communicator.hpp"

namespace ddl {

namespace {

// A collective in flight plays every step: StepPacing ends a run of alike steps at the pace it
// has measured, which another collective starting or ending beside it would change.
class EveryStep : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  StepPacing* step_pacing() override { return nullptr; }
};

}  // namespace

bool CollectiveHandle::test() {
  DDL_CHECK(task_ != nullptr, "test() on a handle of no collective");
  if (!task_->done()) return false;
  task_->wait();  // returns at once; rethrows the collective's error
  return true;
}

void CollectiveHandle::wait() {
  DDL_CHECK(task_ != nullptr, "wait() on a handle of no collective");
  task_->wait();
}

double CollectiveHandle::start_time() const {
  DDL_CHECK(times_ != nullptr, "start_time() of a handle of no collective");
  return times_->start;
}

double CollectiveHandle::end_time() const {
  DDL_CHECK(times_ != nullptr, "end_time() of a handle of no collective");
  return times_->end;
}

CollectiveHandle NonBlocking::start(Communicator& comm, const Algorithm& algo, MutView buffer,
                                    DType type, ReduceOp op, const Options& options) {
  CollectiveHandle h;
  h.times_ = std::make_shared<CollectiveHandle::Times>();
  std::shared_ptr<StreamTask> before = last_[&comm];
  h.task_ = launcher_.launch([&comm, &algo, buffer, type, op, options, before, times = h.times_] {
    // The communicator's collectives in the order started; one that failed fails this one too
    // (its peers may be anywhere in it).
    if (before) before->wait();
    EveryStep stream(comm);
    times->start = stream.now();
    algo.run(stream, buffer, type, op, options);
    times->end = stream.now();
  });
  last_[&comm] = h.task_;
  return h;
}

}  // namespace ddl
