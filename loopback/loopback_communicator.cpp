#include "loopback/loopback_communicator.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"

namespace ddl {

LoopbackWorld::LoopbackWorld(int size, std::chrono::duration<double> timeout)
    : size_(size), timeout_(timeout) {
  if (size < 1) throw InvalidArgument("loopback world needs at least one rank");
  wakeups_ = std::vector<std::condition_variable>(static_cast<std::size_t>(size));
}

void LoopbackWorld::abort(const std::string& why) {
  std::lock_guard lock(mutex_);
  if (abort_reason_.empty()) abort_reason_ = why;
  for (auto& w : wakeups_) w.notify_all();
}

std::uint64_t LoopbackWorld::post(int src, int dst, int tag, bool is_send, void* data,
                                  std::size_t bytes, std::string what) {
  std::unique_lock lock(mutex_);
  const std::uint64_t id = next_id_++;
  ops_[id].what = std::move(what);
  ops_[id].owner = is_send ? src : dst;
  auto& waiting = is_send ? recvs_[{src, dst, tag}] : sends_[{src, dst, tag}];
  if (waiting.empty()) {
    (is_send ? sends_ : recvs_)[{src, dst, tag}].push_back({id, data, bytes});
    return id;
  }
  const Pending other = waiting.front();
  waiting.pop_front();
  const Pending send = is_send ? Pending{id, data, bytes} : other;
  const Pending recv = is_send ? other : Pending{id, data, bytes};
  std::string error;
  if (send.bytes != recv.bytes) {
    error = "message size mismatch: rank " + std::to_string(src) + " sent " +
            std::to_string(send.bytes) + " bytes to rank " + std::to_string(dst) + " with tag " +
            std::to_string(tag) + ", which posted a receive of " + std::to_string(recv.bytes);
  } else if (send.bytes > 0) {
    // The matched pair is off the queues, so nobody else touches these buffers: copy unlocked.
    lock.unlock();
    std::memcpy(recv.data, send.data, send.bytes);
    lock.lock();
  }
  complete(send.id, error);
  complete(recv.id, error);
  return id;
}

void LoopbackWorld::complete(std::uint64_t id, const std::string& error) {
  Op& op = ops_[id];
  op.done = true;
  op.error = error;
  wakeups_[static_cast<std::size_t>(op.owner)].notify_all();
}

std::uint64_t LoopbackWorld::post_timer(int rank, std::chrono::steady_clock::time_point ready_at) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  ops_[id].owner = rank;
  ops_[id].ready_at = ready_at;
  ops_[id].what = "compute";
  ops_[id].done = true;
  return id;
}

void LoopbackWorld::wait(int rank, std::uint64_t id) {
  std::unique_lock lock(mutex_);
  auto it = ops_.find(id);
  DDL_CHECK(it != ops_.end(), "wait on an unknown request");
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout_);
  const bool ok = wakeups_[static_cast<std::size_t>(rank)].wait_until(
      lock, deadline, [&] { return ops_[id].done || !abort_reason_.empty(); });
  if (!ok && abort_reason_.empty())
    throw Timeout("rank " + std::to_string(rank) + ": " + ops_[id].what + " timed out after " +
                  std::to_string(timeout_.count()) + " s");
  finish(lock, rank, id);
}

void LoopbackWorld::finish(std::unique_lock<std::mutex>& lock, int rank, std::uint64_t id) {
  Op op = ops_[id];
  ops_.erase(id);
  if (!abort_reason_.empty() && !op.done)
    throw Abandoned("rank " + std::to_string(rank) + ": " + op.what +
                    " abandoned: " + abort_reason_);
  if (!op.error.empty()) throw InvalidArgument("rank " + std::to_string(rank) + ": " + op.error);
  lock.unlock();
  if (op.ready_at > std::chrono::steady_clock::now()) std::this_thread::sleep_until(op.ready_at);
}

std::size_t LoopbackWorld::wait_any(int rank, std::span<const std::uint64_t> ids) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock lock(mutex_);
  for (std::uint64_t id : ids)
    DDL_CHECK(id == 0 || ops_.count(id), "wait_any on an unknown request");
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout_);
  for (;;) {
    // A compute() timer is done at once but ready only at its time: it completes then, so a
    // message that arrives before it is returned first.
    auto wake = deadline;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] == 0) continue;
      const Op& op = ops_[ids[i]];
      if (!abort_reason_.empty() || (op.done && op.ready_at <= Clock::now())) {
        finish(lock, rank, ids[i]);
        return i;
      }
      if (op.done) wake = std::min(wake, op.ready_at);
    }
    if (Clock::now() >= deadline) {
      std::string what;
      for (std::uint64_t id : ids)
        if (id != 0) what += (what.empty() ? "" : ", ") + ops_[id].what;
      throw Timeout("rank " + std::to_string(rank) + ": none of " + what + " completed after " +
                    std::to_string(timeout_.count()) + " s");
    }
    wakeups_[static_cast<std::size_t>(rank)].wait_until(lock, wake);
  }
}

LoopbackCommunicator::LoopbackCommunicator(LoopbackWorld& world, int rank)
    : world_(world),
      rank_(rank),
      pool_([](std::size_t bytes) { return ::operator new(bytes); },
            [](void* p) { ::operator delete(p); }) {
  DDL_CHECK(rank >= 0 && rank < world.size(), "loopback rank out of range");
}

LoopbackCommunicator::~LoopbackCommunicator() = default;

double LoopbackCommunicator::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void LoopbackCommunicator::check_peer(int peer, const char* op) const {
  if (peer < 0 || peer >= size() || peer == rank_)
    throw InvalidArgument("rank " + std::to_string(rank_) + ": " + op + " with invalid peer " +
                          std::to_string(peer));
}

Request LoopbackCommunicator::isend(int peer, ConstView data, int tag) {
  check_peer(peer, "isend");
  std::string what = "send to peer " + std::to_string(peer) + " tag " + std::to_string(tag) + " (" +
                     std::to_string(data.bytes) + " bytes)";
  return {world_.post(rank_, peer, tag, true, const_cast<void*>(data.data), data.bytes,
                      std::move(what))};
}

Request LoopbackCommunicator::irecv(int peer, MutView data, int tag) {
  check_peer(peer, "irecv");
  std::string what = "recv from peer " + std::to_string(peer) + " tag " + std::to_string(tag) +
                     " (" + std::to_string(data.bytes) + " bytes)";
  return {world_.post(peer, rank_, tag, false, data.data, data.bytes, std::move(what))};
}

void LoopbackCommunicator::wait(Request& r) {
  if (!r.pending()) return;
  const std::uint64_t id = r.id;
  r = {};
  world_.wait(rank_, id);
}

std::size_t LoopbackCommunicator::wait_any(std::span<Request> rs) {
  std::vector<std::uint64_t> ids;
  for (const Request& r : rs) ids.push_back(r.id);
  DDL_CHECK(std::any_of(ids.begin(), ids.end(), [](std::uint64_t id) { return id != 0; }),
            "wait_any without a pending request");
  const std::size_t done = world_.wait_any(rank_, ids);
  rs[done] = {};
  return done;
}

void LoopbackCommunicator::reduce(MutView inout, ConstView in, DType type, ReduceOp op) {
  DDL_CHECK(inout.bytes == in.bytes, "reduce of views of different sizes");
  host_reduce(inout.data, in.data, inout.bytes / dtype_size(type), type, op);
}

void LoopbackCommunicator::copy(MutView dst, ConstView src) {
  DDL_CHECK(dst.bytes == src.bytes, "copy of views of different sizes");
  if (dst.bytes && dst.data != src.data) std::memmove(dst.data, src.data, dst.bytes);
}

bool LoopbackCommunicator::shares_memory_with(int peer) const {
  return peer >= 0 && peer < size() && peer != rank_;
}

MemoryHandle LoopbackCommunicator::handle(MutView buffer) {
  return {reinterpret_cast<std::uintptr_t>(buffer.data), buffer.bytes, 0};
}

void LoopbackCommunicator::get(int peer, const MemoryHandle& remote, std::size_t offset,
                               MutView local) {
  check_peer(peer, "get");
  check_remote_range(remote, offset, local.bytes, "get", peer);
  if (local.bytes)
    std::memcpy(local.data, reinterpret_cast<const std::byte*>(remote.address) + offset,
                local.bytes);
}

void LoopbackCommunicator::put(int peer, const MemoryHandle& remote, std::size_t offset,
                               ConstView local) {
  check_peer(peer, "put");
  check_remote_range(remote, offset, local.bytes, "put", peer);
  if (local.bytes)
    std::memcpy(reinterpret_cast<std::byte*>(remote.address) + offset, local.data, local.bytes);
}

void LoopbackCommunicator::divide(MutView inout, DType type, std::size_t divisor) {
  host_divide(inout.data, inout.bytes / dtype_size(type), type, divisor);
}

MutView LoopbackCommunicator::acquire_scratch(std::size_t bytes) {
  return pool_.acquire(bytes);
}

void LoopbackCommunicator::release_scratch(MutView scratch) {
  pool_.release(scratch);
}

Request LoopbackCommunicator::compute(double seconds) {
  const auto ready = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(seconds));
  return {world_.post_timer(rank_, ready)};
}

void run_ranks(int size, const std::function<void(Communicator&)>& fn,
               std::chrono::duration<double> timeout) {
  LoopbackWorld world(size, timeout);
  std::vector<std::exception_ptr> causes(static_cast<std::size_t>(size)),
      knock_ons(static_cast<std::size_t>(size));
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      try {
        LoopbackCommunicator comm(world, r);
        fn(comm);
      } catch (const Abandoned&) {
        knock_ons[static_cast<std::size_t>(r)] = std::current_exception();
      } catch (const std::exception& e) {
        causes[static_cast<std::size_t>(r)] = std::current_exception();
        world.abort("rank " + std::to_string(r) + " failed: " + e.what());
      }
    });
  for (std::thread& t : threads) t.join();
  for (const auto& e : causes)
    if (e) std::rethrow_exception(e);
  for (const auto& e : knock_ons)
    if (e) std::rethrow_exception(e);
}

}  // namespace ddl
