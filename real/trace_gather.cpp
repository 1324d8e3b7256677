#include "real/trace_gather.hpp"

#include <algorithm>
#include <climits>
#include <sstream>

#include "algorithms/error.hpp"
#include "real/mpi_error.hpp"

namespace ddl {

namespace {

constexpr int kTag = 8;
// MPI counts are int: a rank's text travels in pieces of at most this many bytes.
constexpr std::size_t kPiece = std::size_t{1} << 30;

void send_text(const std::string& text, MPI_Comm world) {
  unsigned long long bytes = text.size();
  check_mpi(MPI_Send(&bytes, 1, MPI_UNSIGNED_LONG_LONG, 0, kTag, world), "MPI_Send (trace size)");
  for (std::size_t off = 0; off < text.size(); off += kPiece)
    check_mpi(MPI_Send(text.data() + off, static_cast<int>(std::min(kPiece, text.size() - off)), MPI_CHAR, 0, kTag,
                       world),
              "MPI_Send (trace)");
}

std::string receive_text(int from, MPI_Comm world) {
  unsigned long long bytes = 0;
  check_mpi(MPI_Recv(&bytes, 1, MPI_UNSIGNED_LONG_LONG, from, kTag, world, MPI_STATUS_IGNORE), "MPI_Recv (trace size)");
  std::string text(bytes, '\0');
  for (std::size_t off = 0; off < text.size(); off += kPiece)
    check_mpi(MPI_Recv(text.data() + off, static_cast<int>(std::min(kPiece, text.size() - off)), MPI_CHAR, from, kTag,
                       world, MPI_STATUS_IGNORE),
              "MPI_Recv (trace)");
  return text;
}

}  // namespace

std::optional<std::string> open_trace_on_root(MPI_Comm world, const std::string& path,
                                              std::optional<harness::TraceFile>& file) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  std::string error;
  if (rank == 0) try {
      file.emplace(path);
    } catch (const Error& e) {
      error = e.what();
    }
  int length = static_cast<int>(error.size());
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, 0, world), "MPI_Bcast (trace file)");
  error.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(error.data(), length, MPI_CHAR, 0, world), "MPI_Bcast (trace file)");
  if (error.empty()) return std::nullopt;
  return error;
}

void write_gathered_trace(MPI_Comm world, harness::TraceFormat format, const std::vector<harness::TraceEvent>& events,
                          std::optional<harness::TraceFile>& file) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(world, &size), "MPI_Comm_size");
  std::ostringstream mine;
  harness::write_trace_events(mine, format, events);
  // Rank 0 asks for each part in turn (a token), so the others do not all send at once.
  if (rank != 0) {
    char go = 0;
    check_mpi(MPI_Recv(&go, 1, MPI_CHAR, 0, kTag, world, MPI_STATUS_IGNORE), "MPI_Recv (trace turn)");
    send_text(mine.str(), world);
    return;
  }
  DDL_CHECK(file.has_value(), "rank 0 has no trace file open");
  std::ostream& out = file->stream();
  harness::write_trace_header(out, format);
  out << mine.str();
  for (int r = 1; r < size; ++r) {
    const char go = 1;
    check_mpi(MPI_Send(&go, 1, MPI_CHAR, r, kTag, world), "MPI_Send (trace turn)");
    out << receive_text(r, world);
  }
  file->close();
}

}  // namespace ddl
