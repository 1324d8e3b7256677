#include "real/mpi/mpi_communicator.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <new>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/bounded_wait.hpp"
#include "real/mpi/cross_memory.hpp"
#include "real/mpi/measured_plan_cache.hpp"
#include "real/mpi/mpi_control_variable.hpp"
#include "real/mpi/mpi_datatypes.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {
namespace {

// Largest single MPI message: a power of two below INT_MAX keeps pieces element-aligned.
constexpr std::size_t kMaxMessage = std::size_t{1} << 30;
constexpr std::size_t kAlignment = 64;  // cache line; also what AVX-512 loads like

void* allocate_host(std::size_t bytes) {
  void* p = ::operator new (bytes, std::align_val_t{kAlignment});
  // Touch every page now, so the first collective does not pay the page faults.
  std::memset(p, 0, bytes);
  return p;
}

void free_host(void* p) {
  ::operator delete (p, std::align_val_t{kAlignment});
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm, double timeout_s)
    : timeout_s_(timeout_s), scratch_(allocate_host, free_host) {
  set_timeout(timeout_s);
  {
    const WatchdogGuard guard(timeout_s, "MPI_Comm_dup (the communicator's own duplicate)");
    check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  }
  check_mpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  void* tag_ub = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &found), "MPI_Comm_get_attr(MPI_TAG_UB)");
  if (found) max_tag_ = *static_cast<int*>(tag_ub);
  peer_pids_ = cross_memory_peers(comm_, timeout_s);
  // Every rank must price alike (auto's choice is made on each), so the ranks agree on the
  // smallest; a rank that does not know it (no peer on its node) makes it 0 for all.
  bool shares = false;
  for (int pid : peer_pids_) shares = shares || pid != 0;
  unsigned long long limit = shares ? mpi_control_variable("btl_vader_eager_limit").value_or(0) : 0;
  bounded_allreduce(&limit, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm_, timeout_s,
                    "the agreement on the shared-memory eager limit");
  eager_limit_ = static_cast<std::size_t>(limit);
}

bool MpiCommunicator::shares_memory_with(int peer) const {
  return peer >= 0 && peer < size_ && peer_pids_[static_cast<std::size_t>(peer)] != 0;
}

MemoryHandle MpiCommunicator::handle(MutView buffer) {
  return {reinterpret_cast<std::uintptr_t>(buffer.data), buffer.bytes,
          static_cast<std::uint64_t>(getpid())};
}

int MpiCommunicator::reach(int peer, const MemoryHandle& remote, std::size_t offset,
                           std::size_t bytes, const char* op) const {
  check_peer_tag(peer, 0, op);
  check_remote_range(remote, offset, bytes, op, peer);
  if (!shares_memory_with(peer))
    throw InvalidArgument(std::string(op) + ": rank " + std::to_string(rank_) +
                          " does not share memory with rank " + std::to_string(peer));
  const int pid = peer_pids_[static_cast<std::size_t>(peer)];
  if (remote.owner != static_cast<std::uint64_t>(pid))
    throw InvalidArgument(std::string(op) + ": the handle is not one of rank " +
                          std::to_string(peer) + "'s buffers");
  return pid;
}

void MpiCommunicator::get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) {
  const int pid = reach(peer, remote, offset, local.bytes, "get");
  cross_memory_copy(CrossMemory::read, pid, local.data, remote.address + offset, local.bytes);
}

void MpiCommunicator::put(int peer, const MemoryHandle& remote, std::size_t offset,
                          ConstView local) {
  const int pid = reach(peer, remote, offset, local.bytes, "put");
  cross_memory_copy(CrossMemory::write, pid, const_cast<void*>(local.data), remote.address + offset,
                    local.bytes);
}

std::string MpiCommunicator::native_name() const {
  return "MPI_Allreduce";
}

bool MpiCommunicator::native_supports(DType type) const {
  return mpi_type(type) != MPI_DATATYPE_NULL;
}

void MpiCommunicator::native_allreduce(MutView data, DType type, ReduceOp op) {
  const MPI_Datatype mt = mpi_type(type);
  if (mt == MPI_DATATYPE_NULL)
    throw InvalidArgument("native: MPI_Allreduce has no " + std::string(to_string(type)) +
                          " reduction");
  if (op == ReduceOp::avg)
    throw InvalidArgument(
        "native_allreduce: avg has no MPI op (native reduces a sum, then divides)");
  // The blocking call under a watchdog, not MPI_Iallreduce polled like the other waits: Open
  // MPI runs non-blocking collectives through another component (libnbc) whose allreduce is 1.5-4x
  // slower here than the blocking one's (measured 4 KB-16 MB, 2 ranks), and `native` is the
  // library's best. MPI counts are int: larger buffers go in pieces of INT_MAX elements at most.
  const std::size_t elem = dtype_size(type);
  auto* at = static_cast<std::byte*>(data.data);
  for (std::size_t left = data.bytes / elem; left > 0;) {
    const std::size_t n = std::min<std::size_t>(left, INT_MAX);
    const WatchdogGuard guard(timeout_s_, "MPI_Allreduce (native)");
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, at, static_cast<int>(n), mt, mpi_op(op), comm_),
              "MPI_Allreduce (native)");
    at += n * elem;
    left -= n;
  }
}

std::shared_ptr<const Plan> MpiCommunicator::measured_plan(const Dims& grid, std::string* basis) {
  // Compared by extents, not by a formatted key: auto asks on every collective.
  for (const Measured& m : measured_)
    if (m.grid == grid.extents()) {
      if (basis) *basis = m.basis;
      return m.plan;
    }
  MeasuredPlan m = measured_plan_for(*this, grid);
  measured_.push_back({grid.extents(), m.plan, m.basis});
  if (basis) *basis = m.basis;
  return m.plan;
}

MpiCommunicator::~MpiCommunicator() {
  // Requests still pending here belong to an operation that failed: release them so
  // MPI_Finalize does not wait for messages that will never come.
  for (Op& op : ops_)
    if (op.live) cancel(op);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color, int key) {
  MPI_Comm part = MPI_COMM_NULL;
  {
    const WatchdogGuard guard(timeout_s_, "MPI_Comm_split (split)");
    check_mpi(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &part),
              "MPI_Comm_split");
  }
  if (part == MPI_COMM_NULL) return nullptr;
  // The child works on its own duplicate of `part`, as every MpiCommunicator does.
  std::unique_ptr<Communicator> child;
  try {
    child = std::make_unique<MpiCommunicator>(part, timeout_s_);
  } catch (...) {
    MPI_Comm_free(&part);
    throw;
  }
  MPI_Comm_free(&part);
  return child;
}

void MpiCommunicator::set_timeout(double seconds) {
  if (!(seconds > 0))
    throw InvalidArgument("timeout must be positive, got " + seconds_text(seconds));
  timeout_s_ = seconds;
}

double MpiCommunicator::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void MpiCommunicator::check_peer_tag(int peer, int tag, const char* operation) const {
  if (peer < 0 || peer >= size_)
    throw InvalidArgument(std::string(operation) + ": rank " + std::to_string(rank_) + ": peer " +
                          std::to_string(peer) + " is not in [0, " + std::to_string(size_) + ")");
  if (tag < 0 || tag > max_tag_)
    throw InvalidArgument(std::string(operation) + ": rank " + std::to_string(rank_) + ": tag " +
                          std::to_string(tag) + " is outside MPI's range [0, " +
                          std::to_string(max_tag_) + "]");
}

Request MpiCommunicator::post(Kind kind, int peer, void* data, std::size_t bytes, int tag) {
  const char* name = kind == Kind::send ? "isend" : "irecv";
  check_peer_tag(peer, tag, name);
  if (bytes > 0 && data == nullptr)
    throw InvalidArgument(std::string(name) + ": null buffer of " + std::to_string(bytes) +
                          " bytes (the MPI backend moves real payload)");
  Request request;
  Op& op = open_slot(kind, peer, tag, bytes, request);
  // A zero-byte message is still sent: the receiver matches it like any other.
  const std::size_t pieces = bytes == 0 ? 1 : (bytes + kMaxMessage - 1) / kMaxMessage;
  op.requests.resize(pieces, MPI_REQUEST_NULL);
  op.expected.resize(pieces);
  auto* base = static_cast<std::byte*>(data);
  for (std::size_t i = 0; i < pieces; ++i) {
    const std::size_t offset = i * kMaxMessage;
    const std::size_t length = std::min(kMaxMessage, bytes - offset);
    op.expected[i] = length;
    const int count = static_cast<int>(length);
    void* where = base ? base + offset : nullptr;
    // The error text is built only on failure: posting is on the latency path.
    const int rc = kind == Kind::send
                       ? MPI_Isend(where, count, MPI_BYTE, peer, tag, comm_, &op.requests[i])
                       : MPI_Irecv(where, count, MPI_BYTE, peer, tag, comm_, &op.requests[i]);
    if (rc != MPI_SUCCESS) {
      const std::string what = (kind == Kind::send ? "MPI_Isend" : "MPI_Irecv") +
                               std::string(", rank ") + std::to_string(rank_) + ", " + describe(op);
      cancel(op);
      close_slot(request);
      check_mpi(rc, what);
    }
  }
  return request;
}

MpiCommunicator::Op& MpiCommunicator::open_slot(Kind kind, int peer, int tag, std::size_t bytes,
                                                Request& request) {
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(ops_.size());
    ops_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Op& op = ops_[slot];
  op.kind = kind;
  op.peer = peer;
  op.tag = tag;
  op.bytes = bytes;
  op.requests.clear();
  op.expected.clear();
  op.completed = 0;
  op.ready_at = 0;
  op.live = true;
  ++op.generation;
  request.id = (std::uint64_t{op.generation} << 32) | (std::uint64_t{slot} + 1);
  return op;
}

MpiCommunicator::Op* MpiCommunicator::find(const Request& r) {
  const std::uint64_t slot = (r.id & 0xffffffffu) - 1;
  if (!r.pending() || slot >= ops_.size()) return nullptr;
  Op& op = ops_[slot];
  return op.live && op.generation == (r.id >> 32) ? &op : nullptr;
}

const MpiCommunicator::Op* MpiCommunicator::find(const Request& r) const {
  return const_cast<MpiCommunicator*>(this)->find(r);
}

void MpiCommunicator::close_slot(const Request& r) {
  Op* op = find(r);
  if (op == nullptr) return;
  op->live = false;
  free_slots_.push_back(static_cast<std::uint32_t>((r.id & 0xffffffffu) - 1));
}

Request MpiCommunicator::isend(int peer, ConstView data, int tag) {
  return post(Kind::send, peer, const_cast<void*>(data.data), data.bytes, tag);
}

Request MpiCommunicator::irecv(int peer, MutView data, int tag) {
  return post(Kind::recv, peer, data.data, data.bytes, tag);
}

bool MpiCommunicator::test(Request& r) {
  if (!r.pending()) return true;
  Op* found = find(r);
  DDL_CHECK(found != nullptr, "test/wait on a request this communicator does not know");
  Op& op = *found;
  // A compute request is the clock alone: it makes no MPI call. The thread that runs it stands
  // for a device's compute stream, and a transfer is progressed by the thread that waits for it
  // (ddlrun --workload's comm stream has its own). A compute thread that drove MPI progress
  // (an MPI_Iprobe per poll, before) performed the other stream's receives itself: Open MPI's
  // single-copy get into the comm thread's buffer, from the compute thread. Under
  // ThreadSanitizer every word of that buffer then went through the race-report path before its
  // suppression matched, and a 4-rank ResNet-50 iteration took 7 s or over 300 s by which thread
  // happened to copy.
  if (op.kind == Kind::compute && now() < op.ready_at) return false;
  while (op.completed < op.requests.size()) {
    int flag = 0;
    MPI_Status status;
    const int rc = MPI_Test(&op.requests[op.completed], &flag, &status);
    if (rc != MPI_SUCCESS)
      check_mpi(rc, "MPI_Test, rank " + std::to_string(rank_) + ", " + describe(op));
    if (!flag) return false;
    if (op.kind == Kind::recv) {
      int received = 0;
      check_mpi(MPI_Get_count(&status, MPI_BYTE, &received), "MPI_Get_count");
      const std::size_t want = op.expected[op.completed];
      if (static_cast<std::size_t>(received) != want)
        throw BackendError("rank " + std::to_string(rank_) + ": " + describe(op) + ": peer sent " +
                           std::to_string(received) + " bytes where " + std::to_string(want) +
                           " were expected (send and receive sizes must match)");
    }
    ++op.completed;
  }
  close_slot(r);
  r = {};
  return true;
}

void MpiCommunicator::wait(Request& r) {
  if (!r.pending()) return;
  const Request awaited = r;
  poll_until([&] { return test(r); }, timeout_s_,
             [&] {
               return "rank " + std::to_string(rank_) + ": timed out after " +
                      seconds_text(timeout_s_) + " s waiting for " + describe(awaited);
             },
             [&] {
               Op* op = find(awaited);
               if (op == nullptr) return;
               cancel(*op);
               close_slot(awaited);
             });
}

std::size_t MpiCommunicator::wait_any(std::span<Request> rs) {
  std::size_t first = rs.size();
  for (std::size_t i = 0; i < rs.size() && first == rs.size(); ++i)
    if (rs[i].pending()) first = i;
  DDL_CHECK(first < rs.size(), "wait_any without a pending request");
  const Request awaited = rs[first];
  std::size_t done = first;
  poll_until(
      [&] {
        for (std::size_t i = 0; i < rs.size(); ++i)
          if (rs[i].pending() && test(rs[i])) {
            done = i;
            return true;
          }
        return false;
      },
      timeout_s_,
      [&] {
        return "rank " + std::to_string(rank_) + ": timed out after " + seconds_text(timeout_s_) +
               " s waiting for any of " + std::to_string(rs.size()) + " requests, the first " +
               describe(awaited);
      },
      [&] {
        for (Request& r : rs) {
          Op* op = r.pending() ? find(r) : nullptr;
          if (op == nullptr) continue;
          cancel(*op);
          close_slot(r);
        }
      });
  return done;
}

std::string MpiCommunicator::describe(const Request& r) const {
  const Op* op = find(r);
  return op == nullptr ? std::string("a completed request") : describe(*op);
}

std::string MpiCommunicator::describe(const Op& op) const {
  switch (op.kind) {
    case Kind::send:
      return "send to peer " + std::to_string(op.peer) + " tag " + std::to_string(op.tag) + " (" +
             std::to_string(op.bytes) + " bytes)";
    case Kind::recv:
      return "recv from peer " + std::to_string(op.peer) + " tag " + std::to_string(op.tag) + " (" +
             std::to_string(op.bytes) + " bytes)";
    case Kind::compute: return "compute";
  }
  return "?";
}

void MpiCommunicator::cancel(Op& op) {
  // Receives are cancelled (nothing can land afterwards); a send cannot be recalled reliably
  // in Open MPI, so its request is only freed and completes or dies with the job.
  for (MPI_Request& req : op.requests) {
    if (req == MPI_REQUEST_NULL) continue;
    if (op.kind == Kind::recv) MPI_Cancel(&req);
    MPI_Request_free(&req);
  }
}

void MpiCommunicator::reduce(MutView inout, ConstView in, DType type, ReduceOp op) {
  DDL_CHECK(inout.bytes == in.bytes, "reduce: views differ in size");
  const std::size_t elem = dtype_size(type);
  DDL_CHECK(inout.bytes % elem == 0, "reduce: view is not a whole number of elements");
  host_reduce(inout.data, in.data, inout.bytes / elem, type, op);
}

void MpiCommunicator::copy(MutView dst, ConstView src) {
  DDL_CHECK(dst.bytes == src.bytes, "copy: views differ in size");
  if (dst.bytes > 0 && dst.data != src.data) std::memmove(dst.data, src.data, dst.bytes);
}

void MpiCommunicator::divide(MutView inout, DType type, std::size_t divisor) {
  const std::size_t elem = dtype_size(type);
  DDL_CHECK(inout.bytes % elem == 0, "divide: view is not a whole number of elements");
  host_divide(inout.data, inout.bytes / elem, type, divisor);
}

MutView MpiCommunicator::acquire_scratch(std::size_t bytes) {
  return scratch_.acquire(bytes);
}

void MpiCommunicator::release_scratch(MutView scratch) {
  scratch_.release(scratch);
}

Request MpiCommunicator::compute(double seconds) {
  DDL_CHECK(seconds >= 0, "compute: negative duration");
  Request request;
  open_slot(Kind::compute, -1, -1, 0, request).ready_at = now() + seconds;
  return request;
}

void bounded_barrier(MPI_Comm comm, double timeout_s, bool quiet, const char* what) {
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm, &req), "MPI_Ibarrier");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  poll_until(
      [&] {
        int done = 0;
        check_mpi(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test (barrier)");
        return done != 0;
      },
      timeout_s,
      [&] {
        return "rank " + std::to_string(rank) + ": timed out after " + std::to_string(timeout_s) +
               " s in " + what + " (another rank stopped or is stuck)";
      },
      [] {}, quiet);
}

}  // namespace ddl
