#include "calibrate/control.hpp"

#include <mpi.h>

#include <algorithm>
#include <string>

#include "algorithms/error.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/bounded_wait.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl::calibrate {
namespace {

// Above every tag the measurements use (7 and a few more), within MPI's guaranteed 32767.
constexpr int kUpTag = 32000, kDownTag = 32001;

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

// Waits for every request; on timeout names the ranks (`peers[i]` for `requests[i]`) still
// missing and cancels what is pending.
void wait_named(MpiCommunicator& comm, std::vector<MPI_Request>& requests,
                const std::vector<int>& peers, double timeout, const char* what) {
  poll_until(
      [&] {
        int done = 0;
        check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                              MPI_STATUSES_IGNORE),
                  std::string("MPI_Testall (") + what + ")");
        if (!done) answer_ping();  // rank 0 may be asking who is still here (main's Timeout)
        return done != 0;
      },
      timeout,
      [&] {
        std::vector<int> late;
        for (std::size_t i = 0; i < requests.size(); ++i) {
          int done = requests[i] == MPI_REQUEST_NULL;
          if (!done) MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE);
          if (!done && std::find(late.begin(), late.end(), peers[i]) == late.end())
            late.push_back(peers[i]);
        }
        std::string missing;
        for (int r : late) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        return "rank " + std::to_string(comm.rank()) + ": timed out after " + seconds(timeout) +
               " s in " + what + " waiting for rank" +
               (missing.find(',') == std::string::npos ? " " : "s ") + missing +
               " (stopped, stuck or gone)";
      },
      [&] {
        for (MPI_Request& r : requests)
          if (r != MPI_REQUEST_NULL) {
            MPI_Cancel(&r);
            MPI_Request_free(&r);
          }
      },
      true);
}

// Rank 0 gathers `count` doubles from every rank into `all` (rank-major), folds them with
// `fold`, and sends the result back; the others send theirs and receive the result.
template <typename Fold>
void through_root(MpiCommunicator& comm, std::vector<double>& values, const char* what,
                  Fold&& fold) {
  const int p = comm.size(), count = static_cast<int>(values.size());
  const double t = comm.timeout();
  std::vector<MPI_Request> requests;
  std::vector<int> peers;
  if (comm.rank() == 0) {
    std::vector<double> all(static_cast<std::size_t>(count) * static_cast<std::size_t>(p));
    for (int r = 1; r < p; ++r) {
      requests.push_back(MPI_REQUEST_NULL);
      peers.push_back(r);
      check_mpi(MPI_Irecv(all.data() + static_cast<std::size_t>(r) * count, count, MPI_DOUBLE, r,
                          kUpTag, comm.comm(), &requests.back()),
                "MPI_Irecv (control)");
    }
    wait_named(comm, requests, peers, t + kControlMargin, what);
    for (int r = 1; r < p; ++r) fold(values, all.data() + static_cast<std::size_t>(r) * count);
    requests.assign(static_cast<std::size_t>(p - 1), MPI_REQUEST_NULL);
    for (int r = 1; r < p; ++r)
      check_mpi(
          MPI_Isend(values.data(), count, MPI_DOUBLE, r, kDownTag, comm.comm(), &requests[r - 1]),
          "MPI_Isend (control)");
    wait_named(comm, requests, peers, t + kControlMargin, what);
  } else {
    requests.assign(2, MPI_REQUEST_NULL);
    peers.assign(2, 0);
    std::vector<double> mine = values;
    check_mpi(MPI_Irecv(values.data(), count, MPI_DOUBLE, 0, kDownTag, comm.comm(), &requests[1]),
              "MPI_Irecv (control)");
    check_mpi(MPI_Isend(mine.data(), count, MPI_DOUBLE, 0, kUpTag, comm.comm(), &requests[0]),
              "MPI_Isend (control)");
    wait_named(comm, requests, peers, t + 2 * kControlMargin, what);
  }
}

}  // namespace

void control_barrier(MpiCommunicator& comm, const char* what) {
  std::vector<double> none;
  through_root(comm, none, what, [](std::vector<double>&, const double*) {});
}

void control_max(MpiCommunicator& comm, std::vector<double>& values, const char* what) {
  through_root(comm, values, what, [](std::vector<double>& into, const double* other) {
    for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], other[i]);
  });
}

}  // namespace ddl::calibrate
