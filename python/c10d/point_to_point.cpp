// ProcessGroupDDL's send and recv (process_group_ddl.hpp): the one part of the backend that is
// not a collective of ddl's C API, so it uses MPI itself, on the group's communicator (ranked as
// torch ranks the group). Every wait is bounded by the group's timeout: the requests are polled
// with MPI_Testall, and a rank whose peer never comes raises naming itself, the peer and the tag.
#include <chrono>
#include <thread>

#include "python/c10d/completed_work.hpp"
#include "python/c10d/process_group_ddl.hpp"
#include "python/c10d/tensor_checks.hpp"

namespace ddl::c10d_backend {
namespace {

// MPI counts are ints: a tensor of more bytes travels as several messages of at most this
// many, which MPI delivers in order between one pair of ranks on one tag.
constexpr std::size_t kPieceBytes = std::size_t{1} << 30;

[[noreturn]] void fail(bool value, const char* function, const std::string& what) {
  const std::string text = std::string("ddl backend: ") + function + ": " + what;
  if (value) throw c10::ValueError({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, text);
  throw c10::Error({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, text);
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

std::string seconds_text(double s) {
  std::string t = std::to_string(s);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t;
}

}  // namespace

void ProcessGroupDDL::point_to_point(const char* function, bool sending, void* data,
                                     std::size_t bytes, int peer, int tag) {
  const std::size_t pieces = bytes == 0 ? 1 : (bytes + kPieceBytes - 1) / kPieceBytes;
  std::vector<MPI_Request> requests(pieces, MPI_REQUEST_NULL);
  std::vector<int> lengths(pieces);
  auto* base = static_cast<char*>(data);
  for (std::size_t i = 0; i < pieces; ++i) {
    const std::size_t offset = i * kPieceBytes;
    lengths[i] = static_cast<int>(std::min(kPieceBytes, bytes - offset));
    const int rc =
        sending
            ? MPI_Isend(base + offset, lengths[i], MPI_BYTE, peer, tag, mpi_comm_, &requests[i])
            : MPI_Irecv(base + offset, lengths[i], MPI_BYTE, peer, tag, mpi_comm_, &requests[i]);
    if (rc != MPI_SUCCESS) fail(false, function, mpi_error_text(rc));
  }

  std::vector<MPI_Status> statuses(pieces);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    int complete = 0;
    const int rc =
        MPI_Testall(static_cast<int>(pieces), requests.data(), &complete, statuses.data());
    if (rc == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& s : statuses)
        if (s.MPI_ERROR != MPI_SUCCESS && s.MPI_ERROR != MPI_ERR_PENDING)
          fail(s.MPI_ERROR == MPI_ERR_TRUNCATE, function,
               "rank " + std::to_string(rank_) + ": from peer " + std::to_string(peer) + " tag " +
                   std::to_string(tag) + ": " +
                   (s.MPI_ERROR == MPI_ERR_TRUNCATE ? "the message is longer than the tensor (" +
                                                          std::to_string(bytes) + " bytes)"
                                                    : mpi_error_text(s.MPI_ERROR)));
    } else if (rc != MPI_SUCCESS) {
      fail(false, function, mpi_error_text(rc));
    }
    if (complete) break;
    if (std::chrono::steady_clock::now() > deadline) {
      // The peers are in an unknown state now; what is still posted is withdrawn so it cannot
      // touch the tensor later.
      for (MPI_Request& r : requests)
        if (r != MPI_REQUEST_NULL) {
          MPI_Cancel(&r);
          MPI_Request_free(&r);
        }
      fail(false, function,
           "rank " + std::to_string(rank_) + ": timed out after " + seconds_text(timeout_s_) +
               " s waiting for " + (sending ? "send to" : "recv from") + " peer " +
               std::to_string(peer) + " tag " + std::to_string(tag) + " (" + std::to_string(bytes) +
               " bytes)");
    }
    std::this_thread::yield();  // the ranks may share cores with the peer being waited for
  }
  if (!sending)
    for (std::size_t i = 0; i < pieces; ++i) {
      int received = 0;
      MPI_Get_count(&statuses[i], MPI_BYTE, &received);
      if (received != lengths[i])
        fail(true, function,
             "rank " + std::to_string(rank_) + ": the message from peer " + std::to_string(peer) +
                 " tag " + std::to_string(tag) + " is shorter than the tensor (" +
                 std::to_string(bytes) + " bytes)");
    }
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::send(std::vector<at::Tensor>& tensors, int dst_rank,
                                                     int tag) {
  constexpr const char* f = "send";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(tensors.size())) fail(true, f, *bad);
  if (auto bad = check_tensor(tensors[0], "the tensor")) fail(true, f, *bad);
  if (dst_rank < 0 || dst_rank >= size_ || tag < 0)
    fail(true, f,
         "destination " + std::to_string(dst_rank) + " tag " + std::to_string(tag) +
             ": the destination must be a rank of the group (0 .. " + std::to_string(size_ - 1) +
             ") and the tag >= 0");
  point_to_point(f, true, tensors[0].data_ptr(), tensors[0].nbytes(), dst_rank, tag);
  return done(rank_, c10d::OpType::SEND, tensors);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::recv(std::vector<at::Tensor>& tensors, int src_rank,
                                                     int tag) {
  constexpr const char* f = "recv";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(tensors.size())) fail(true, f, *bad);
  if (auto bad = check_tensor(tensors[0], "the tensor")) fail(true, f, *bad);
  if (src_rank < 0 || src_rank >= size_ || tag < 0)
    fail(true, f,
         "source " + std::to_string(src_rank) + " tag " + std::to_string(tag) +
             ": the source must be a rank of the group (0 .. " + std::to_string(size_ - 1) +
             ") and the tag >= 0");
  point_to_point(f, false, tensors[0].data_ptr(), tensors[0].nbytes(), src_rank, tag);
  return done(rank_, c10d::OpType::RECV, tensors);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::recvAnysource(std::vector<at::Tensor>&, int) {
  fail(true, "recv",
       "receiving from any source (src=None) is not supported by the ddl backend; name the "
       "source rank");
}

}  // namespace ddl::c10d_backend
