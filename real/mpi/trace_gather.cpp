#include "real/mpi/trace_gather.hpp"

#include <algorithm>
#include <climits>
#include <sstream>

#include "algorithms/error.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

namespace {

constexpr int kTag = 8;
// MPI counts are int: a rank's text travels in pieces of at most this many bytes.
constexpr std::size_t kPiece = std::size_t{1} << 30;

// Point-to-point on `world`, bounded: a rank that stops mid-gather is named, not waited for.
void send_bounded(const void* data, int count, MPI_Datatype type, int to, MPI_Comm world,
                  double timeout_s, const std::string& what) {
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Isend(data, count, type, to, kTag, world, &req), "MPI_Isend (" + what + ")");
  wait_bounded(req, world, timeout_s, what);
}

void recv_bounded(void* data, int count, MPI_Datatype type, int from, MPI_Comm world,
                  double timeout_s, const std::string& what) {
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Irecv(data, count, type, from, kTag, world, &req), "MPI_Irecv (" + what + ")");
  wait_bounded(req, world, timeout_s, what);
}

void send_text(const std::string& text, MPI_Comm world, double timeout_s) {
  unsigned long long bytes = text.size();
  const std::string what = "sending this rank's trace to rank 0";
  send_bounded(&bytes, 1, MPI_UNSIGNED_LONG_LONG, 0, world, timeout_s, what);
  for (std::size_t off = 0; off < text.size(); off += kPiece)
    send_bounded(text.data() + off, static_cast<int>(std::min(kPiece, text.size() - off)), MPI_CHAR,
                 0, world, timeout_s, what);
}

std::string receive_text(int from, MPI_Comm world, double timeout_s) {
  const std::string what = "the gather of rank " + std::to_string(from) + "'s trace";
  unsigned long long bytes = 0;
  recv_bounded(&bytes, 1, MPI_UNSIGNED_LONG_LONG, from, world, timeout_s, what);
  std::string text(bytes, '\0');
  for (std::size_t off = 0; off < text.size(); off += kPiece)
    recv_bounded(text.data() + off, static_cast<int>(std::min(kPiece, text.size() - off)), MPI_CHAR,
                 from, world, timeout_s, what);
  return text;
}

void bcast_bounded(void* data, int count, MPI_Datatype type, MPI_Comm world, double timeout_s) {
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibcast(data, count, type, 0, world, &req), "MPI_Ibcast (trace file)");
  wait_bounded(req, world, timeout_s, "rank 0's word on the trace file");
}

}  // namespace

std::optional<std::string> open_trace_on_root(MPI_Comm world, const std::string& path,
                                              std::optional<harness::TraceFile>& file,
                                              double timeout_s) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  std::string error;
  if (rank == 0) try {
      file.emplace(path);
    } catch (const Error& e) {
      error = e.what();
    }
  int length = static_cast<int>(error.size());
  bcast_bounded(&length, 1, MPI_INT, world, timeout_s);
  error.resize(static_cast<std::size_t>(length));
  bcast_bounded(error.data(), length, MPI_CHAR, world, timeout_s);
  if (error.empty()) return std::nullopt;
  return error;
}

void write_gathered_trace(MPI_Comm world, harness::TraceFormat format,
                          const std::vector<harness::TraceEvent>& events,
                          std::optional<harness::TraceFile>& file, double timeout_s) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(world, &size), "MPI_Comm_size");
  fault_point("trace_gather");
  std::ostringstream mine;
  harness::write_trace_events(mine, format, events);
  // Rank 0 asks for each part in turn (a token), so the others do not all send at once. A rank
  // waits for its turn at most timeout_s after rank 0 took the previous rank's part... and the
  // ranks before it may each take that long, so the wait for the token grows with the rank.
  if (rank != 0) {
    char go = 0;
    recv_bounded(&go, 1, MPI_CHAR, 0, world, timeout_s * rank,
                 "the wait for rank 0 to ask for this rank's trace");
    send_text(mine.str(), world, timeout_s);
    return;
  }
  DDL_CHECK(file.has_value(), "rank 0 has no trace file open");
  std::ostream& out = file->stream();
  harness::write_trace_header(out, format);
  out << mine.str();
  for (int r = 1; r < size; ++r) {
    const char go = 1;
    send_bounded(&go, 1, MPI_CHAR, r, world, timeout_s,
                 "asking rank " + std::to_string(r) + " for its trace");
    out << receive_text(r, world, timeout_s);
  }
  file->close();
}

}  // namespace ddl
