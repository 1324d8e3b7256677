// The transports of CudaCommunicator: direct (cuda-aware MPI), staged through pinned host
// buffers with double buffering, and NCCL point-to-point. All of them only ever poll.
#include <string>

#include "algorithms/error.hpp"
#include "real/cuda/cuda_communicator_impl.hpp"
#include "real/cuda/cuda_kernels.hpp"

namespace ddl {

using cuda::check;

#ifdef DDL_HAVE_NCCL
void check_nccl(ncclResult_t code, const char* what) {
  if (code != ncclSuccess) throw BackendError(std::string(what) + ": " + ncclGetErrorString(code));
}
#endif

namespace {
bool event_done(cudaEvent_t e, const char* what) {
  const cudaError_t code = cudaEventQuery(e);
  if (code == cudaErrorNotReady) return false;
  check(code, what);
  return true;
}
}  // namespace

Request CudaCommunicator::Impl::post(Op op) {
  const std::uint64_t id = next_id++;
  if (op.bytes == 0 || transport == DeviceTransport::cuda_aware_mpi) {
    // Zero-byte messages carry no data to stage: plain MPI matches them by (peer, tag).
    op.direct = op.send ? mpi.isend(op.peer, ConstView{op.device, op.bytes}, op.tag)
                        : mpi.irecv(op.peer, MutView{op.device, op.bytes}, op.tag);
  } else if (transport == DeviceTransport::nccl) {
    nccl_post(op);
  } else {
    start_staged(op);
    channels[{op.send, op.peer, op.tag}].push_back(id);
  }
  ops.emplace(id, std::move(op));
  return {id};
}

std::size_t CudaCommunicator::Impl::piece_length(const Op& op, std::size_t k) const {
  const std::size_t offset = k * config.stage_chunk;
  return std::min(config.stage_chunk, op.bytes - offset);
}

void CudaCommunicator::Impl::start_staged(Op& op) {
  op.staged = true;
  op.pieces = (op.bytes + config.stage_chunk - 1) / config.stage_chunk;
  const std::size_t slot_bytes = std::min(config.stage_chunk, op.bytes);
  for (Slot& s : op.slots) {
    s.host = pinned.acquire(slot_bytes);
    check(cudaEventCreateWithFlags(&s.copied, cudaEventDisableTiming), "cudaEventCreate");
  }
}

void CudaCommunicator::Impl::finish_staged(Op& op) {
  for (Slot& s : op.slots) {
    pinned.release(s.host);
    s.host = {};
    cudaEventDestroy(s.copied);
    s.copied = nullptr;
  }
  op.staged = false;
}

bool CudaCommunicator::Impl::channel_head(std::uint64_t id, const Op& op) const {
  auto it = channels.find({op.send, op.peer, op.tag});
  return it != channels.end() && !it->second.empty() && it->second.front() == id;
}

void CudaCommunicator::Impl::release_channel(std::uint64_t id, const Op& op) {
  auto it = channels.find({op.send, op.peer, op.tag});
  if (it != channels.end() && !it->second.empty() && it->second.front() == id)
    it->second.pop_front();
}

// Send pipeline: piece k is copied device->host into slot k%2 (started), then sent by MPI in
// piece order (moved), then its slot is free again (finished). Two slots: the copy of piece
// k+1 overlaps the transfer of piece k.
bool CudaCommunicator::Impl::advance_staged_send(std::uint64_t id, Op& op) {
  while (op.finished < op.moved && mpi.test(op.slots[op.finished % 2].mpi)) ++op.finished;
  while (op.started < op.pieces && op.started - op.finished < 2) {
    Slot& s = op.slots[op.started % 2];
    const std::size_t len = piece_length(op, op.started);
    check(cudaMemcpyAsync(s.host.data,
                          static_cast<std::byte*>(op.device) + op.started * config.stage_chunk, len,
                          cudaMemcpyDeviceToHost, d2h),
          "cudaMemcpyAsync (staging send)");
    check(cudaEventRecord(s.copied, d2h), "cudaEventRecord");
    ++op.started;
  }
  while (op.moved < op.started && channel_head(id, op) &&
         event_done(op.slots[op.moved % 2].copied, "device-to-host staging copy")) {
    Slot& s = op.slots[op.moved % 2];
    s.mpi = mpi.isend(op.peer, ConstView{s.host.data, piece_length(op, op.moved)}, op.tag);
    if (++op.moved == op.pieces) release_channel(id, op);
  }
  while (op.finished < op.moved && mpi.test(op.slots[op.finished % 2].mpi)) ++op.finished;
  if (op.finished < op.pieces) return false;
  finish_staged(op);
  return true;
}

// Receive pipeline: MPI receives piece k into slot k%2 (started, in piece order), then it is
// copied host->device (moved), then the slot is free (finished).
bool CudaCommunicator::Impl::advance_staged_recv(std::uint64_t id, Op& op) {
  while (op.finished < op.moved &&
         event_done(op.slots[op.finished % 2].copied, "host-to-device staging copy"))
    ++op.finished;
  while (op.started < op.pieces && op.started - op.finished < 2 && channel_head(id, op)) {
    Slot& s = op.slots[op.started % 2];
    s.mpi = mpi.irecv(op.peer, MutView{s.host.data, piece_length(op, op.started)}, op.tag);
    if (++op.started == op.pieces) release_channel(id, op);
  }
  while (op.moved < op.started && mpi.test(op.slots[op.moved % 2].mpi)) {
    Slot& s = op.slots[op.moved % 2];
    check(cudaMemcpyAsync(static_cast<std::byte*>(op.device) + op.moved * config.stage_chunk,
                          s.host.data, piece_length(op, op.moved), cudaMemcpyHostToDevice, h2d),
          "cudaMemcpyAsync (staging receive)");
    check(cudaEventRecord(s.copied, h2d), "cudaEventRecord");
    ++op.moved;
  }
  if (op.finished < op.pieces) return false;
  finish_staged(op);
  return true;
}

bool CudaCommunicator::Impl::advance(std::uint64_t id, Op& op) {
  if (op.staged) return op.send ? advance_staged_send(id, op) : advance_staged_recv(id, op);
  if (op.group) {
    if (op.group == open_group) nccl_launch_group();
    return event_done(op.group->event, "NCCL point-to-point");
  }
  return mpi.test(op.direct);
}

void CudaCommunicator::Impl::progress_all() {
  // Every staged op moves on while any one is awaited: a rank waiting for its receive must
  // still push its own send, or a ring of such ranks would wait forever.
  for (auto& [id, op] : ops)
    if (op.staged) op.send ? advance_staged_send(id, op) : advance_staged_recv(id, op);
  if (open_group) nccl_launch_group();
}

void CudaCommunicator::Impl::nccl_post(Op& op) {
#ifdef DDL_HAVE_NCCL
  // Ops posted back to back form one NCCL group, launched at the next wait: NCCL runs a
  // group's sends and receives together, so a ring of ranks that all send first cannot block.
  if (!open_group) {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    open_group = std::make_shared<GroupEvent>();
  }
  if (op.send)
    check_nccl(ncclSend(op.device, op.bytes, ncclInt8, op.peer, nccl, net), "ncclSend");
  else
    check_nccl(ncclRecv(op.device, op.bytes, ncclInt8, op.peer, nccl, net), "ncclRecv");
  op.group = open_group;
#else
  (void)op;
  throw InvalidArgument("the NCCL transport is not built in");
#endif
}

void CudaCommunicator::Impl::nccl_launch_group() {
#ifdef DDL_HAVE_NCCL
  if (!open_group) return;
  std::shared_ptr<GroupEvent> group = std::move(open_group);
  open_group.reset();
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  check(cudaEventCreateWithFlags(&group->event, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventRecord(group->event, net), "cudaEventRecord");
  group->recorded = true;
#endif
}

}  // namespace ddl
