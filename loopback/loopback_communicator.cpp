#include "loopback/loopback_communicator.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <thread>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "algorithms/split_members.hpp"

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

std::uint64_t LoopbackWorld::group_id(std::uint64_t parent, std::uint64_t index, int color) {
  std::lock_guard lock(mutex_);
  // Ids start after the world's 0; the first member to ask allocates, the others find it.
  const auto [it, inserted] = group_ids_.try_emplace({parent, index, color}, group_ids_.size() + 1);
  return it->second;
}

std::uint64_t LoopbackWorld::post(std::uint64_t context, int src, int dst, int tag, bool is_send,
                                  void* data, std::size_t bytes, std::string what) {
  std::unique_lock lock(mutex_);
  const std::uint64_t id = next_id_++;
  ops_[id].what = std::move(what);
  ops_[id].owner = is_send ? src : dst;
  const Key key{context, src, dst, tag};
  auto& waiting = is_send ? recvs_[key] : sends_[key];
  if (waiting.empty()) {
    (is_send ? sends_ : recvs_)[key].push_back({id, data, bytes});
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

namespace {

std::vector<int> all_ranks(int size) {
  std::vector<int> ranks(static_cast<std::size_t>(std::max(size, 0)));
  for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = static_cast<int>(i);
  return ranks;
}

int world_rank_of(const std::vector<int>& members, int rank) {
  DDL_CHECK(rank >= 0 && static_cast<std::size_t>(rank) < members.size(),
            "loopback rank out of range");
  return members[static_cast<std::size_t>(rank)];
}

}  // namespace

LoopbackCommunicator::LoopbackCommunicator(LoopbackWorld& world, int rank)
    : LoopbackCommunicator(world, 0, all_ranks(world.size()), rank) {}

LoopbackCommunicator::LoopbackCommunicator(LoopbackWorld& world, std::uint64_t id,
                                           std::vector<int> members, int rank)
    : world_(world),
      id_(id),
      members_(std::move(members)),
      rank_(rank),
      world_rank_(world_rank_of(members_, rank)),
      pool_([](std::size_t bytes) { return ::operator new(bytes); },
            [](void* p) { ::operator delete(p); }) {}

LoopbackCommunicator::~LoopbackCommunicator() = default;

double LoopbackCommunicator::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void LoopbackCommunicator::check_peer(int peer, const char* op) const {
  if (peer < 0 || peer >= size() || peer == rank_)
    throw InvalidArgument("rank " + std::to_string(rank_) + ": " + op + " with invalid peer " +
                          std::to_string(peer));
}

Request LoopbackCommunicator::post(int peer, void* data, std::size_t bytes, int tag, bool is_send,
                                   bool internal) {
  check_peer(peer, is_send ? "isend" : "irecv");
  std::string what = std::string(is_send ? "send to" : "recv from") + " peer " +
                     std::to_string(peer) + " tag " + std::to_string(tag) + " (" +
                     std::to_string(bytes) + " bytes" +
                     (id_ == 0 ? "" : ", group " + std::to_string(id_)) + ")";
  const int there = members_[static_cast<std::size_t>(peer)];
  return {world_.post(2 * id_ + (internal ? 1 : 0), is_send ? world_rank_ : there,
                      is_send ? there : world_rank_, tag, is_send, data, bytes, std::move(what))};
}

Request LoopbackCommunicator::isend(int peer, ConstView data, int tag) {
  return post(peer, const_cast<void*>(data.data), data.bytes, tag, true, false);
}

Request LoopbackCommunicator::irecv(int peer, MutView data, int tag) {
  return post(peer, data.data, data.bytes, tag, false, false);
}

void LoopbackCommunicator::wait(Request& r) {
  if (!r.pending()) return;
  const std::uint64_t id = r.id;
  r = {};
  world_.wait(world_rank_, id);
}

std::unique_ptr<Communicator> LoopbackCommunicator::split(int color, int key) {
  const std::uint64_t index = splits_++;
  // Every rank's (color, key), by an allgather in split's own context.
  std::vector<std::array<int, 2>> all(members_.size());
  all[static_cast<std::size_t>(rank_)] = {color, key};
  std::vector<Request> exchange;
  for (int p = 0; p < size(); ++p) {
    if (p == rank_) continue;
    exchange.push_back(post(p, &all[static_cast<std::size_t>(p)], sizeof all[0], 0, false, true));
    exchange.push_back(
        post(p, &all[static_cast<std::size_t>(rank_)], sizeof all[0], 0, true, true));
  }
  wait_all(exchange);
  if (color < 0) return nullptr;
  SplitGroup group = split_members(all, members_, rank_, color);
  return std::unique_ptr<Communicator>(new LoopbackCommunicator(
      world_, world_.group_id(id_, index, color), std::move(group.members), group.rank));
}

std::size_t LoopbackCommunicator::wait_any(std::span<Request> rs) {
  std::vector<std::uint64_t> ids;
  for (const Request& r : rs) ids.push_back(r.id);
  DDL_CHECK(std::any_of(ids.begin(), ids.end(), [](std::uint64_t id) { return id != 0; }),
            "wait_any without a pending request");
  const std::size_t done = world_.wait_any(world_rank_, ids);
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
  return {world_.post_timer(world_rank_, ready)};
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
