// The Work every operation of the ddl torch.distributed backend returns: the backend runs each
// operation to completion inside the call, so its Work is born done, with the outputs in a
// completed future (DDP's reducer reads a bucket's result from work->getFuture()->value(), a
// tensor list, and Work::wait() returns at once).
#pragma once

#include <torch/csrc/distributed/c10d/Work.hpp>
#include <utility>
#include <vector>

namespace ddl::c10d_backend {

class CompletedWork : public c10d::Work {
 public:
  CompletedWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs)
      : Work(rank, type),
        outputs_(std::move(outputs)),
        future_(c10::make_intrusive<c10::ivalue::Future>(
            c10::ListType::create(c10::TensorType::get()))) {
    future_->markCompleted(c10::IValue(outputs_));
    finish();
  }
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

 private:
  std::vector<at::Tensor> outputs_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

inline c10::intrusive_ptr<c10d::Work> done(int rank, c10d::OpType type,
                                           std::vector<at::Tensor> outputs) {
  return c10::make_intrusive<CompletedWork>(rank, type, std::move(outputs));
}

}  // namespace ddl::c10d_backend
