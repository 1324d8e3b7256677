#include "tools/sim_ranks/sweep_mpi.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "algorithms/error.hpp"
#include "real/mpi/startup_bound.hpp"
#include "tools/sim_ranks/launched_by_mpirun.hpp"
#include "tools/sim_ranks/sweep_mpi_wait.hpp"

namespace ddl::sim {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw BackendError(std::string(call) + ": " +
                     std::string(text, static_cast<std::size_t>(length)));
}

namespace {

// libsimgrid.so exports SMPI's MPI_* as well. The dynamic linker binds every MPI_* reference in
// the process (ddlsim's, libmpi's own, Open MPI's dlopen'ed components') to the first library in
// the global search order that defines it, so ddlsim links libmpi ahead of libsimgrid
// (sim/CMakeLists.txt). Checked here, before the first call, because a link that put
// libsimgrid first would send MPI_Init to SMPI, which outside smpirun crashes.
void require_open_mpi() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init), &info) == 0 || info.dli_fname == nullptr)
    throw BackendError("cannot tell which library MPI_Init comes from (dladdr failed)");
  const std::string file = info.dli_fname;
  if (file.find("libmpi") == std::string::npos)
    throw BackendError("MPI_Init resolves to " + file +
                       ", not Open MPI's libmpi (libsimgrid exports SMPI's MPI_* too): this "
                       "ddlsim was linked with libsimgrid ahead of libmpi");
}

}  // namespace

void wait_for(MPI_Request& req, double timeout_s, int rank, const std::string& what) {
  using clock = std::chrono::steady_clock;
  const auto deadline =
      clock::now() + std::chrono::duration_cast<clock::duration>(
                         std::chrono::duration<double>(timeout_s < 1e9 ? timeout_s : 1e9));
  while (true) {
    int done = 0;
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    if (clock::now() >= deadline)
      throw Timeout("rank " + std::to_string(rank) + ": no answer within " +
                    std::to_string(static_cast<long long>(timeout_s)) + " s (--timeout) while " +
                    what + ": another rank stopped, is stuck or is still simulating");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

SweepRanks::SweepRanks(int& argc, char**& argv) {
  if (!launched_by_mpirun()) return;
  require_open_mpi();
  {
    // timeout_s_ holds --timeout's default until ddlsim has read its arguments.
    const StartupBound bound("ddlsim", startup_timeout(argc, argv, timeout_s_));
    check(MPI_Init(&argc, &argv), "MPI_Init");
  }
  mpi_ = true;
  // Errors come back as codes (check()) rather than Open MPI's default abort.
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
}

SweepRanks::~SweepRanks() {
  if (!mpi_) return;
  // MPI_Finalize waits for every rank without a bound: a bounded barrier first.
  try {
    MPI_Request req;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
    wait_for(req, timeout_s_, rank_, "waiting for the other ranks to finish");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
}

void SweepRanks::abort(int exit_code) const {
  if (mpi_) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

std::vector<std::vector<double>> allgather_values(const SweepRanks& ranks,
                                                  const std::vector<double>& mine,
                                                  const std::string* error) {
  if (ranks.size() == 1) {
    if (error) throw BackendError("rank 0: " + *error);
    return {mine};
  }
  // First every rank's status and payload size, then the payloads (the values, or the error's
  // text) as bytes.
  const auto n = static_cast<std::size_t>(ranks.size());
  const std::string what = "exchanging the planner's simulated times";
  std::vector<char> payload;
  if (error) {
    payload.assign(error->begin(), error->end());
  } else {
    payload.resize(mine.size() * sizeof(double));
    if (!mine.empty()) std::memcpy(payload.data(), mine.data(), payload.size());
  }
  const std::int64_t header[2] = {error ? 1 : 0, static_cast<std::int64_t>(payload.size())};
  std::vector<std::int64_t> headers(2 * n);
  MPI_Request req;
  check(
      MPI_Iallgather(header, 2, MPI_INT64_T, headers.data(), 2, MPI_INT64_T, MPI_COMM_WORLD, &req),
      "MPI_Iallgather");
  wait_for(req, ranks.timeout(), ranks.rank(), what);
  std::vector<int> counts(n), displs(n);
  std::size_t total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    counts[r] = static_cast<int>(headers[2 * r + 1]);
    displs[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  std::vector<char> all(total);
  check(MPI_Iallgatherv(payload.data(), static_cast<int>(payload.size()), MPI_CHAR, all.data(),
                        counts.data(), displs.data(), MPI_CHAR, MPI_COMM_WORLD, &req),
        "MPI_Iallgatherv");
  wait_for(req, ranks.timeout(), ranks.rank(), what);
  std::vector<std::vector<double>> out(n);
  for (std::size_t r = 0; r < n; ++r) {
    const char* p = all.data() + displs[r];
    const auto bytes = static_cast<std::size_t>(counts[r]);
    if (headers[2 * r] != 0)
      throw BackendError("rank " + std::to_string(r) + ": " + std::string(p, bytes));
    out[r].resize(bytes / sizeof(double));
    if (bytes) std::memcpy(out[r].data(), p, bytes);
  }
  return out;
}

}  // namespace ddl::sim
