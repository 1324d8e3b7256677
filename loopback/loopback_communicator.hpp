// Ranks as threads of one process, matching messages in memory by (sender, receiver, tag).
// The test backend: every algorithm is checked here over ranks x counts x dtypes before it
// meets SimGrid or MPI. Sends are rendezvous (a send completes when its receive has copied
// the data), as large messages are on real transports, so buffer-reuse bugs show up.
//
// Groups (split): a child is a rank table (group rank -> world rank) over the same world.
// Messages match by (context, sender, receiver, tag) in world ranks; communicator id c sends
// its users' messages in context 2c and split's own exchange of (color, key) in context 2c + 1,
// which no user tag reaches. The world communicators have id 0; a child's id is allocated by
// the world once per (parent id, the parent's split count, color), which every member asks
// with the same values because split is collective: ids agree without a message.
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
  using Key = std::tuple<std::uint64_t, int, int, int>;  // context, sender, receiver, tag

  // src and dst are world ranks.
  std::uint64_t post(std::uint64_t context, int src, int dst, int tag, bool is_send, void* data,
                     std::size_t bytes, std::string what);
  // The id of the group of `color` that the `index`-th split of communicator `parent` makes.
  std::uint64_t group_id(std::uint64_t parent, std::uint64_t index, int color);
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
  std::map<std::tuple<std::uint64_t, std::uint64_t, int>, std::uint64_t> group_ids_;
};

// Threads of one process share all memory: one-sided get/put are copies, to every peer.
class LoopbackCommunicator : public Communicator, public OneSided {
 public:
  // Rank `rank` of the whole world.
  LoopbackCommunicator(LoopbackWorld& world, int rank);
  ~LoopbackCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
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
  std::unique_ptr<Communicator> split(int color, int key) override;

  bool shares_memory_with(int peer) const override;
  std::size_t eager_limit() const override { return 0; }  // not reported: priced as eager
  MemoryHandle handle(MutView buffer) override;
  void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override;
  void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) override;

 private:
  LoopbackCommunicator(LoopbackWorld& world, std::uint64_t id, std::vector<int> members, int rank);
  void check_peer(int peer, const char* op) const;
  // A message to or from group rank `peer` in this communicator's users' context (internal:
  // split's own).
  Request post(int peer, void* data, std::size_t bytes, int tag, bool is_send, bool internal);

  LoopbackWorld& world_;
  const std::uint64_t id_;
  const std::vector<int> members_;  // group rank -> world rank
  const int rank_;
  const int world_rank_;
  std::uint64_t splits_ = 0;  // splits made of this communicator so far (the same on every rank)
  ScratchPool pool_;          // grow-only: scratch is allocated once and reused
};

// Run fn on `size` threads, one LoopbackCommunicator each. If any rank throws, the world is
// aborted (the others stop waiting) and the first rank's exception is rethrown here.
void run_ranks(int size, const std::function<void(Communicator&)>& fn,
               std::chrono::duration<double> timeout = std::chrono::seconds(60));

}  // namespace ddl
