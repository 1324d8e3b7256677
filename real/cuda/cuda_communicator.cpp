#include "real/cuda/cuda_communicator.hpp"

#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support

#include "algorithms/error.hpp"
#include "real/cuda/cuda_communicator_impl.hpp"
#include "real/cuda/cuda_kernels.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/bounded_wait.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

using cuda::check;

int cuda_device_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky error so later probes start clean
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device visible";
  return n;
}

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // The compile-time macro only says the extension exists; the library decides at run time.
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

bool nccl_built() {
#ifdef DDL_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

CudaCommunicator::Impl::Impl(MPI_Comm comm, const CudaConfig& cfg)
    : mpi(comm, cfg.timeout_s),
      config(cfg),
      transport(cfg.transport),
      scratch(
          [](std::size_t bytes) {
            void* p = nullptr;
            check(cudaMalloc(&p, bytes), "cudaMalloc (scratch)");
            check(cudaMemset(p, 0, bytes), "cudaMemset (scratch)");
            return p;
          },
          [](void* p) { cudaFree(p); }),
      pinned(
          [](std::size_t bytes) {
            void* p = nullptr;
            check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc (staging)");
            return p;
          },
          [](void* p) { cudaFreeHost(p); }) {
  DDL_CHECK(cfg.stage_chunk > 0, "stage_chunk must be positive");
  check(cudaSetDevice(cfg.device), "cudaSetDevice");
  for (cudaStream_t* s : {&compute, &d2h, &h2d, &net})
    check(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), "cudaStreamCreate");
  if (transport == DeviceTransport::automatic)
    transport = mpi_cuda_aware() ? DeviceTransport::cuda_aware_mpi : DeviceTransport::staged;
  if (transport == DeviceTransport::nccl) {
#ifdef DDL_HAVE_NCCL
    ncclUniqueId id{};
    if (mpi.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    // Bounded like every wait of the real backend: a stopped rank 0 must not hang the others.
    MPI_Request req = MPI_REQUEST_NULL;
    check_mpi(MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, mpi.comm(), &req),
              "MPI_Ibcast (NCCL unique id)");
    wait_bounded(req, mpi.comm(), cfg.timeout_s, "the broadcast of the NCCL unique id");
    check_nccl(ncclCommInitRank(&nccl, mpi.size(), id, mpi.rank()), "ncclCommInitRank");
#else
    throw InvalidArgument(
        "--transport nccl: this build has no NCCL (it was not found at configure time)");
#endif
  }
}

CudaCommunicator::Impl::~Impl() {
#ifdef DDL_HAVE_NCCL
  if (nccl) ncclCommDestroy(nccl);
#endif
  for (auto& [id, op] : ops)
    for (Slot& s : op.slots)
      if (s.copied) cudaEventDestroy(s.copied);
  for (cudaStream_t s : {compute, d2h, h2d, net})
    if (s) cudaStreamDestroy(s);
}

void CudaCommunicator::Impl::sync(cudaStream_t stream, const char* what) {
  poll_until(
      [&] {
        const cudaError_t e = cudaStreamQuery(stream);
        if (e == cudaErrorNotReady) return false;
        check(e, what);
        return true;
      },
      config.timeout_s,
      [&] { return "rank " + std::to_string(mpi.rank()) + ": timed out waiting for " + what; },
      [] {});
}

std::string CudaCommunicator::Impl::describe(const Op& op) const {
  return std::string(op.send ? "send to" : "recv from") + " peer " + std::to_string(op.peer) +
         " tag " + std::to_string(op.tag) + " (" + std::to_string(op.bytes) +
         " bytes, device memory, " +
         (op.staged                            ? "staged"
          : transport == DeviceTransport::nccl ? "nccl"
                                               : "direct") +
         ")";
}

CudaCommunicator::CudaCommunicator(MPI_Comm comm, const CudaConfig& config)
    : impl_(std::make_unique<Impl>(comm, config)) {}
CudaCommunicator::~CudaCommunicator() = default;

std::unique_ptr<Communicator> CudaCommunicator::split(int color, int key) {
  MPI_Comm part = MPI_COMM_NULL;
  {
    const WatchdogGuard guard(impl_->config.timeout_s, "MPI_Comm_split (split)");
    check_mpi(MPI_Comm_split(impl_->mpi.comm(), color < 0 ? MPI_UNDEFINED : color, key, &part),
              "MPI_Comm_split");
  }
  if (part == MPI_COMM_NULL) return nullptr;
  CudaConfig config = impl_->config;
  config.transport = impl_->transport;  // as resolved here, so every child agrees with the parent
  std::unique_ptr<Communicator> child;
  try {
    child = std::make_unique<CudaCommunicator>(part, config);
  } catch (...) {
    MPI_Comm_free(&part);
    throw;
  }
  MPI_Comm_free(&part);
  return child;
}

int CudaCommunicator::rank() const {
  return impl_->mpi.rank();
}
int CudaCommunicator::size() const {
  return impl_->mpi.size();
}
double CudaCommunicator::now() {
  return impl_->mpi.now();
}
DeviceTransport CudaCommunicator::transport() const {
  return impl_->transport;
}

std::string CudaCommunicator::transport_name() const {
  switch (impl_->transport) {
    case DeviceTransport::cuda_aware_mpi: return "cuda-aware mpi";
    case DeviceTransport::staged: return "mpi staged via pinned host memory";
    case DeviceTransport::nccl: return "nccl";
    case DeviceTransport::automatic: break;
  }
  return "?";
}

Request CudaCommunicator::isend(int peer, ConstView data, int tag) {
  Impl::Op op;
  op.send = true;
  op.peer = peer;
  op.tag = tag;
  op.bytes = data.bytes;
  op.device = const_cast<void*>(data.data);
  return impl_->post(std::move(op));
}

Request CudaCommunicator::irecv(int peer, MutView data, int tag) {
  Impl::Op op;
  op.peer = peer;
  op.tag = tag;
  op.bytes = data.bytes;
  op.device = data.data;
  return impl_->post(std::move(op));
}

void CudaCommunicator::wait(Request& r) {
  if (!r.pending()) return;
  Impl& m = *impl_;
  auto it = m.ops.find(r.id);
  DDL_CHECK(it != m.ops.end(), "wait on a request this communicator does not know");
  const std::string what = m.describe(it->second);
  poll_until(
      [&] {
        m.progress_all();
        auto found = m.ops.find(r.id);
        if (!m.advance(r.id, found->second)) return false;
        m.ops.erase(found);
        return true;
      },
      m.config.timeout_s,
      [&] {
        return "rank " + std::to_string(m.mpi.rank()) + ": timed out after " +
               std::to_string(m.config.timeout_s) + " s waiting for " + what;
      },
      [] {});
  r = {};
}

std::size_t CudaCommunicator::wait_any(std::span<Request> rs) {
  Impl& m = *impl_;
  std::string what;
  for (const Request& r : rs) {
    if (!r.pending()) continue;
    auto it = m.ops.find(r.id);
    DDL_CHECK(it != m.ops.end(), "wait on a request this communicator does not know");
    what += (what.empty() ? "" : ", ") + m.describe(it->second);
  }
  DDL_CHECK(!what.empty(), "wait_any without a pending request");
  std::size_t done = rs.size();
  poll_until(
      [&] {
        m.progress_all();
        for (std::size_t i = 0; i < rs.size(); ++i) {
          if (!rs[i].pending()) continue;
          auto found = m.ops.find(rs[i].id);
          if (!m.advance(rs[i].id, found->second)) continue;
          m.ops.erase(found);
          done = i;
          return true;
        }
        return false;
      },
      m.config.timeout_s,
      [&] {
        return "rank " + std::to_string(m.mpi.rank()) + ": timed out after " +
               std::to_string(m.config.timeout_s) + " s waiting for any of " + what;
      },
      [] {});
  rs[done] = {};
  return done;
}

void CudaCommunicator::reduce(MutView inout, ConstView in, DType type, ReduceOp op) {
  DDL_CHECK(inout.bytes == in.bytes, "reduce: views differ in size");
  const std::size_t elem = dtype_size(type);
  DDL_CHECK(inout.bytes % elem == 0, "reduce: view is not a whole number of elements");
  cuda::reduce(inout.data, in.data, inout.bytes / elem, type, op, impl_->compute);
  // The result is sent next, by MPI or a copy on another stream: it must be complete.
  impl_->sync(impl_->compute, "the reduce kernel");
}

void CudaCommunicator::copy(MutView dst, ConstView src) {
  DDL_CHECK(dst.bytes == src.bytes, "copy: views differ in size");
  if (dst.bytes == 0 || dst.data == src.data) return;
  check(cudaMemcpyAsync(dst.data, src.data, dst.bytes, cudaMemcpyDeviceToDevice, impl_->compute),
        "cudaMemcpyAsync (device to device)");
  impl_->sync(impl_->compute, "a device-to-device copy");
}

void CudaCommunicator::divide(MutView inout, DType type, std::size_t divisor) {
  const std::size_t elem = dtype_size(type);
  DDL_CHECK(inout.bytes % elem == 0, "divide: view is not a whole number of elements");
  cuda::divide(inout.data, inout.bytes / elem, type, divisor, impl_->compute);
  impl_->sync(impl_->compute, "the divide kernel");
}

MutView CudaCommunicator::acquire_scratch(std::size_t bytes) {
  return impl_->scratch.acquire(bytes);
}
void CudaCommunicator::release_scratch(MutView s) {
  impl_->scratch.release(s);
}

Request CudaCommunicator::compute(double seconds) {
  Impl::Op op;
  op.direct = impl_->mpi.compute(seconds);
  const std::uint64_t id = impl_->next_id++;
  impl_->ops.emplace(id, std::move(op));
  return {id};
}

CudaSpace::~CudaSpace() {
  for (void* p : buffers_) cudaFree(p);
}

MutView CudaSpace::allocate(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), "cudaMalloc (buffer)");
  buffers_.push_back(p);
  check(cudaMemset(p, 0, bytes), "cudaMemset (buffer)");
  return {p, bytes};
}

void CudaSpace::upload(MutView dst, const void* host) {
  if (dst.bytes > 0)
    check(cudaMemcpy(dst.data, host, dst.bytes, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
}

void CudaSpace::download(void* host, ConstView src) {
  if (src.bytes > 0)
    check(cudaMemcpy(host, src.data, src.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (download)");
}

}  // namespace ddl
