#include "algorithms/thread_streams.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace ddl {

namespace {

// The thread is joined by whoever waits first, or at the task's end if nobody waited (a
// handle dropped without a wait still finishes its collective: its peers take part in it).
class ThreadTask : public StreamTask {
 public:
  explicit ThreadTask(std::function<void()> fn) {
    thread_ = std::thread([this, fn = std::move(fn)] {
      std::exception_ptr error;
      try {
        fn();
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mutex_);
      error_ = error;
      done_ = true;
      finished_.notify_all();
    });
  }
  ~ThreadTask() override {
    if (thread_.joinable()) thread_.join();
  }

  bool done() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }

  void wait() override {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return done_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the members it uses exist
};

}  // namespace

std::shared_ptr<StreamTask> ThreadLauncher::launch(std::function<void()> fn) {
  return std::make_shared<ThreadTask>(std::move(fn));
}

}  // namespace ddl
