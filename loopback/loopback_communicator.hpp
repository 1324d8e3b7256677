// Ranks as threads of one process, matching messages in memory by (sender, receiver, tag).
// The test backend: every algorithm is checked here over ranks x counts x dtypes before it
// meets SimGrid or MPI. Sends are rendezvous (a send completes when its receive has copied
// the data), as large messages are on real transports, so buffer-reuse bugs show up.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/error.hpp"
#include "algorithms/one_sided.hpp"
#include "algorithms/scratch_pool.hpp"

namespace ddl {

// Thrown in the ranks that were waiting when another rank failed: a knock-on, not a cause.
class Abandoned : public Error {
 public:
  using Error::Error;
};

class LoopbackWorld {
 public:
  explicit LoopbackWorld(int size,
                         std::chrono::duration<double> timeout = std::chrono::seconds(60));
  int size() const { return size_; }
  std::chrono::duration<double> timeout() const { return timeout_; }
  // Wake every waiter with an error: one rank failed, so the others must not wait for it.
  void abort(const std::string& why);

 private:
  friend class LoopbackCommunicator;
  struct Op {
    bool done = false;
    std::string error;
    int owner = 0;     // the rank that waits on it
    std::string what;  // "recv from peer 3 tag 7 (4096 bytes)", for error messages
    std::chrono::steady_clock::time_point ready_at{};  // compute(): completes at this time
  };
  struct Pending {
    std::uint64_t id;
    void* data;  // const for sends
    std::size_t bytes;
  };
  using Key = std::tuple<int, int, int>;  // sender, receiver, tag

  std::uint64_t post(int src, int dst, int tag, bool is_send, void* data, std::size_t bytes,
                     std::string what);
  void wait(int rank, std::uint64_t id);
  // The index of the first of `ids` (0: none) that completed, waited as wait() waits for it.
  std::size_t wait_any(int rank, std::span<const std::uint64_t> ids);
  // wait()'s end for a completed operation: erase it, throw its error, then keep its time.
  void finish(std::unique_lock<std::mutex>& lock, int rank, std::uint64_t id);
  std::uint64_t post_timer(int rank, std::chrono::steady_clock::time_point ready_at);
  void complete(std::uint64_t id, const std::string& error);

  const int size_;
  const std::chrono::duration<double> timeout_;
  std::mutex mutex_;
  // One per rank: a completion wakes only the rank that waits on it, not all of them.
  std::vector<std::condition_variable> wakeups_;
  std::uint64_t next_id_ = 1;
  std::string abort_reason_;
  std::unordered_map<std::uint64_t, Op> ops_;
  std::map<Key, std::deque<Pending>> sends_, recvs_;
};

// Threads of one process share all memory: one-sided get/put are copies, to every peer.
class LoopbackCommunicator : public Communicator, public OneSided {
 public:
  LoopbackCommunicator(LoopbackWorld& world, int rank);
  ~LoopbackCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  double now() override;
  Request isend(int peer, ConstView data, int tag) override;
  Request irecv(int peer, MutView data, int tag) override;
  void wait(Request& r) override;
  std::size_t wait_any(std::span<Request> rs) override;
  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override;
  void copy(MutView dst, ConstView src) override;
  void divide(MutView inout, DType type, std::size_t divisor) override;
  MutView acquire_scratch(std::size_t bytes) override;
  void release_scratch(MutView scratch) override;
  Request compute(double seconds) override;
  OneSided* one_sided() override { return this; }

  bool shares_memory_with(int peer) const override;
  std::size_t eager_limit() const override { return 0; }  // not reported: priced as eager
  MemoryHandle handle(MutView buffer) override;
  void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override;
  void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) override;

 private:
  void check_peer(int peer, const char* op) const;

  LoopbackWorld& world_;
  const int rank_;
  ScratchPool pool_;  // grow-only: scratch is allocated once and reused
};

// Run fn on `size` threads, one LoopbackCommunicator each. If any rank throws, the world is
// aborted (the others stop waiting) and the first rank's exception is rethrown here.
void run_ranks(int size, const std::function<void(Communicator&)>& fn,
               std::chrono::duration<double> timeout = std::chrono::seconds(60));

}  // namespace ddl
