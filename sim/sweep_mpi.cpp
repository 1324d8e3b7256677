#include "sim/sweep_mpi.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "real/startup_bound.hpp"
#include "sim/launched_by_mpirun.hpp"

namespace ddl::sim {

namespace {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw BackendError(std::string(call) + ": " +
                     std::string(text, static_cast<std::size_t>(length)));
}

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

// Polls `req` until it completes or timeout_s runs out. Sleeps between polls: the ranks still
// simulating need the cores (mpirun -np N often runs more ranks than there are cores).
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

// A rank's share as bytes: a status byte, then the error message or, per case in the order
// run, its time (double), whether it has a wrong count and the count (std::uint64_t).
std::vector<char> pack(const std::vector<CaseResult>& rows, const std::string* error) {
  std::vector<char> out(1, error ? 1 : 0);
  auto put = [&out](const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    out.insert(out.end(), c, c + n);
  };
  if (error) {
    put(error->data(), error->size());
    return out;
  }
  for (const CaseResult& r : rows) {
    const char has_wrong = r.wrong ? 1 : 0;
    const std::uint64_t wrong = r.wrong.value_or(0);
    put(&r.time_s, sizeof r.time_s);
    put(&has_wrong, 1);
    put(&wrong, sizeof wrong);
  }
  return out;
}

// Test hook, as ddlrun's DDLRUN_FAULT (real/bounded_mpi.hpp): with DDLSIM_FAULT=stop:R in the
// environment, rank R stops itself (SIGSTOP) before its share, so a test can check that the
// others end within --timeout and name it. Without the variable it does nothing.
void fault_point(int rank) {
  const char* spec = std::getenv("DDLSIM_FAULT");
  int stopped = -1;
  if (spec != nullptr && std::sscanf(spec, "stop:%d", &stopped) == 1 && stopped == rank)
    std::raise(SIGSTOP);
}

constexpr std::size_t kPackedCase = sizeof(double) + 1 + sizeof(std::uint64_t);
constexpr int kRowsTag = 1;

// On rank 0: the other ranks' shares. poll() takes those that have arrived and is called after
// each of rank 0's own cases, so a rank done early is not left waiting (its send of more than a
// few KB completes only when rank 0 receives it) for all of rank 0's share; finish() waits for
// the rest, bounded by the timeout, and names the ranks that sent nothing.
class ShareCollector {
 public:
  explicit ShareCollector(const SweepRanks& ranks)
      : ranks_(ranks), shares_(static_cast<std::size_t>(ranks.size())) {
    for (int r = 1; r < ranks.size(); ++r) pending_.push_back(r);
  }

  void poll() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      int arrived = 0;
      MPI_Status status;
      check(MPI_Iprobe(*it, kRowsTag, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
      if (!arrived) {
        ++it;
        continue;
      }
      int bytes = 0;
      check(MPI_Get_count(&status, MPI_CHAR, &bytes), "MPI_Get_count");
      std::vector<char>& share = shares_[static_cast<std::size_t>(*it)];
      share.resize(static_cast<std::size_t>(bytes));
      // The message has arrived: this receive completes at once.
      check(
          MPI_Recv(share.data(), bytes, MPI_CHAR, *it, kRowsTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
      if (share.empty()) throw BackendError("rank " + std::to_string(*it) + " sent an empty share");
      it = pending_.erase(it);
    }
  }

  // Every rank's share in rank order, rank 0's being `own`.
  std::vector<std::vector<char>> finish(std::vector<char> own) {
    using clock = std::chrono::steady_clock;
    const double timeout_s = ranks_.timeout();
    const auto deadline =
        clock::now() + std::chrono::duration_cast<clock::duration>(
                           std::chrono::duration<double>(timeout_s < 1e9 ? timeout_s : 1e9));
    shares_[0] = std::move(own);
    while (true) {
      poll();
      if (pending_.empty()) return std::move(shares_);
      if (clock::now() >= deadline) {
        std::string names;
        for (int r : pending_) names += (names.empty() ? "" : ", ") + std::to_string(r);
        throw Timeout("rank 0: no rows from rank " + names + " within " +
                      std::to_string(static_cast<long long>(timeout_s)) +
                      " s (--timeout): stopped, stuck or still simulating");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

 private:
  const SweepRanks& ranks_;
  std::vector<std::vector<char>> shares_;
  std::vector<int> pending_;
};

}  // namespace

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

std::vector<CaseResult> run_sweep_spread(const SweepRanks& ranks, const Platform& platform,
                                         const SweepConfig& config, const SweepProgress& progress) {
  return run_cases_spread(ranks, platform, config, config.each(), progress);
}

std::vector<CaseResult> run_cases_spread(const SweepRanks& ranks, const Platform& platform,
                                         const SweepConfig& config,
                                         const std::vector<harness::SweepCase>& all,
                                         const SweepProgress& progress) {
  if (ranks.size() == 1) return run_cases(platform, config, all, progress);
  const auto n = static_cast<std::size_t>(ranks.size());
  const auto me = static_cast<std::size_t>(ranks.rank());
  std::vector<harness::SweepCase> mine;
  for (std::size_t k = me; k < all.size(); k += n) mine.push_back(all[k]);

  std::vector<CaseResult> rows;
  std::exception_ptr failure;
  std::string message;
  fault_point(ranks.rank());
  std::optional<ShareCollector> collector;
  if (ranks.root()) collector.emplace(ranks);
  // Called by rank 0's actor between its cases (one thread: SimGrid's actors are contexts of
  // the main thread, so MPI sees one caller).
  const SweepProgress between_cases = [&](std::size_t done, std::size_t total,
                                          const std::string& algo, std::size_t bytes) {
    collector->poll();
    if (progress) progress(done, total, algo, bytes);
  };
  try {
    if (!mine.empty())
      rows = run_cases(platform, config, mine, ranks.root() ? between_cases : SweepProgress{});
  } catch (const std::exception& e) {
    failure = std::current_exception();
    message = e.what();
  }
  const std::vector<char> packed = pack(rows, failure ? &message : nullptr);
  if (!ranks.root()) {
    MPI_Request req;
    check(MPI_Isend(packed.data(), static_cast<int>(packed.size()), MPI_CHAR, 0, kRowsTag,
                    MPI_COMM_WORLD, &req),
          "MPI_Isend");
    wait_for(req, ranks.timeout(), ranks.rank(), "sending its rows to rank 0");
    if (failure) std::rethrow_exception(failure);
    return {};
  }
  // Rank 0 receives every share even when its own failed, so no rank is left sending.
  const std::vector<std::vector<char>> shares = collector->finish(packed);
  if (failure) std::rethrow_exception(failure);
  for (std::size_t r = 0; r < n; ++r) {
    const std::vector<char>& share = shares[r];
    if (share.front() != 0)
      throw BackendError("rank " + std::to_string(r) + ": " +
                         std::string(share.begin() + 1, share.end()));
    // Its cases are k = r, r + n, ... below all.size().
    const std::size_t cases = r < all.size() ? (all.size() - r + n - 1) / n : 0;
    if (share.size() != 1 + cases * kPackedCase)
      throw BackendError("rank " + std::to_string(r) + " sent " + std::to_string(share.size()) +
                         " bytes of rows for its " + std::to_string(cases) + " cases");
  }
  std::vector<CaseResult> out(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    const std::size_t r = k % n, i = k / n;
    const char* p = shares[r].data() + 1 + i * kPackedCase;
    CaseResult& row = out[k];
    // As run_cases names them: the canonical name, whole elements.
    row.algo = find_algorithm(all[k].algo).name;
    row.bytes = all[k].bytes / dtype_size(config.type) * dtype_size(config.type);
    std::memcpy(&row.time_s, p, sizeof row.time_s);
    std::uint64_t wrong = 0;
    std::memcpy(&wrong, p + sizeof(double) + 1, sizeof wrong);
    if (p[sizeof(double)] != 0) row.wrong = static_cast<std::size_t>(wrong);
  }
  return out;
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
