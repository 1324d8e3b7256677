#include "real/mpi/rank_agreement.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {
namespace {

// Fixed-size record per rank so one MPI_Allgather carries everything; text longer than this
// is cut, which only shortens the message, never the comparison (that uses the hash).
struct Record {
  int failed;
  unsigned long long hash;
  char text[1000];
};

std::string text_of(const Record& r) {
  return std::string(r.text, strnlen(r.text, sizeof r.text));
}

}  // namespace

unsigned long long hash_text(const std::string& text) {
  unsigned long long h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::vector<GatheredArguments> gather_arguments(MPI_Comm comm, const LocalArguments& mine,
                                                double timeout_s, const std::string& what) {
  int size = 1;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  Record own{};
  own.failed = mine.error ? 1 : 0;
  const std::string& text = mine.error ? *mine.error : mine.canonical;
  own.hash = hash_text(text);
  std::memcpy(own.text, text.data(), std::min(text.size(), sizeof own.text - 1));
  std::vector<Record> all(static_cast<std::size_t>(size));
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(
      MPI_Iallgather(&own, sizeof own, MPI_BYTE, all.data(), sizeof own, MPI_BYTE, comm, &req),
      "MPI_Iallgather (" + what + ")");
  wait_bounded(req, comm, timeout_s, what);
  std::vector<GatheredArguments> gathered;
  gathered.reserve(all.size());
  for (const Record& r : all) gathered.push_back({r.failed != 0, r.hash, text_of(r)});
  return gathered;
}

std::optional<std::string> disagreement(MPI_Comm comm, const LocalArguments& mine,
                                        double timeout_s) {
  const std::vector<GatheredArguments> all =
      gather_arguments(comm, mine, timeout_s, "the start-up comparison of every rank's arguments");
  const int size = static_cast<int>(all.size());
  const std::string sizes = std::to_string(size);
  bool all_failed_alike = true;
  int first_failed = -1;
  for (int r = 0; r < size; ++r) {
    if (all[r].failed && first_failed < 0) first_failed = r;
    if (!all[r].failed || all[r].hash != all[0].hash) all_failed_alike = false;
  }
  // The usual case of a bad flag: every rank read the same command line and failed alike.
  if (all_failed_alike) return all[0].text;
  if (first_failed >= 0)
    return "rank " + std::to_string(first_failed) + " of " + sizes +
           " could not parse its arguments: " + all[first_failed].text;
  for (int r = 1; r < size; ++r)
    if (all[r].hash != all[0].hash)
      return "the ranks were started with different arguments: rank " + std::to_string(r) +
             " parsed {" + all[r].text + "} but rank 0 parsed {" + all[0].text +
             "}; every rank must run the same sweep";
  return std::nullopt;
}

}  // namespace ddl
