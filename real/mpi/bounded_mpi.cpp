#include "real/mpi/bounded_mpi.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>  // program_invocation_short_name (glibc)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "algorithms/error.hpp"
#include "real/mpi/bounded_wait.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

namespace {

constexpr int kReportTag = 9;  // on MPI_COMM_WORLD; the communicators use duplicates
constexpr int kVerdictTag = 10;
constexpr int kPingTag = 11;
constexpr std::size_t kVerdictBytes = 512;

struct RankId {
  unsigned long long host_hash;
  int pid;
};
std::vector<RankId> g_ranks;  // by world rank; empty before record_ranks
int g_rank = -1;
MPI_Comm g_world = MPI_COMM_NULL;
// Not rank 0: a receive of rank 0's "are you there?" (sent when a wait ran out), answered from
// inside any wait_bounded, so a rank that is only waiting, with a longer bound, is not taken
// for a stopped one.
MPI_Request g_ping = MPI_REQUEST_NULL;
int g_ping_buffer = 0;
MPI_Request g_pong = MPI_REQUEST_NULL;

unsigned long long host_hash() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return std::hash<std::string>{}(name);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

int world_rank(MPI_Comm comm) {
  int rank = -1;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

// The state letter of /proc/PID/stat: R, S, D, T (stopped), t (traced), Z, X; 0 when gone.
char process_state(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return 0;
  const std::size_t paren = text.rfind(')');  // the command name may hold spaces
  return paren != std::string::npos && paren + 2 < text.size() ? text[paren + 2] : 0;
}

}  // namespace

void answer_ping() {
  if (g_ping == MPI_REQUEST_NULL) return;
  int done = 0;
  if (MPI_Test(&g_ping, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done) return;
  g_ping = MPI_REQUEST_NULL;
  MPI_Isend(&g_rank, 1, MPI_INT, 0, kReportTag, g_world, &g_pong);
}

void wait_bounded(MPI_Request& req, MPI_Comm comm, double timeout_s, const std::string& what,
                  bool quiet) {
  poll_until(
      [&] {
        int done = 0;
        check_mpi(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test (" + what + ")");
        if (!done) answer_ping();
        return done != 0;
      },
      timeout_s,
      [&] {
        return "rank " + std::to_string(world_rank(comm)) + ": timed out after " +
               seconds_text(timeout_s) + " s in " + what + " (another rank stopped or is stuck)";
      },
      [] {}, quiet);
}

void bounded_allreduce(void* inout, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       double timeout_s, const std::string& what) {
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(MPI_IN_PLACE, inout, count, type, op, comm, &req),
            "MPI_Iallreduce (" + what + ")");
  wait_bounded(req, comm, timeout_s, what);
}

void record_ranks(MPI_Comm world, double timeout_s) {
  int size = 1;
  check_mpi(MPI_Comm_size(world, &size), "MPI_Comm_size");
  g_rank = world_rank(world);
  const RankId mine{host_hash(), static_cast<int>(getpid())};
  std::vector<RankId> all(static_cast<std::size_t>(size));
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(
      MPI_Iallgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, world, &req),
      "MPI_Iallgather (rank table)");
  wait_bounded(req, world, timeout_s, "the start-up exchange of process ids");
  g_ranks = std::move(all);
  g_world = world;
  if (g_rank != 0)
    check_mpi(MPI_Irecv(&g_ping_buffer, 1, MPI_INT, 0, kPingTag, world, &g_ping),
              "MPI_Irecv (ping)");
}

std::string stopped_ranks_on_this_node() {
  std::string found;
  const unsigned long long here = host_hash();
  for (std::size_t r = 0; r < g_ranks.size(); ++r) {
    if (static_cast<int>(r) == g_rank || g_ranks[r].host_hash != here) continue;
    const char state = process_state(g_ranks[r].pid);
    const char* what = state == 0 || state == 'Z' || state == 'X' ? "is gone"
                       : state == 'T'                             ? "is stopped (SIGSTOP)"
                       : state == 't'                             ? "is stopped by a debugger"
                                                                  : nullptr;
    if (!what) continue;
    found += (found.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + " (pid " +
             std::to_string(g_ranks[r].pid) + ") " + what;
  }
  return found;
}

std::string unresponsive_ranks(MPI_Comm world, double grace_s, double rank0_late_s) {
  int size = 1;
  MPI_Comm_size(world, &size);
  const int rank = world_rank(world);
  using clock = std::chrono::steady_clock;
  const auto until = [](double s) {
    return clock::now() +
           std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(s));
  };
  const auto test = [](MPI_Request& r) {
    int done = 0;
    return r == MPI_REQUEST_NULL || (MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done);
  };
  const auto nap = [] {
    const timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
  };
  if (rank != 0) {
    char verdict[kVerdictBytes] = {};
    int here = rank;
    MPI_Request sent = MPI_REQUEST_NULL, got = MPI_REQUEST_NULL;
    MPI_Isend(&here, 1, MPI_INT, 0, kReportTag, world, &sent);
    MPI_Irecv(verdict, sizeof verdict, MPI_CHAR, 0, kVerdictTag, world, &got);
    const double patience = rank0_late_s + grace_s + 1;
    for (const auto deadline = until(patience); clock::now() < deadline; nap())
      if (test(got)) return std::string(verdict, strnlen(verdict, sizeof verdict));
    std::string local = stopped_ranks_on_this_node();
    return "rank 0 did not answer within " + seconds_text(patience) +
           " s: it is stopped, stuck or gone" + (local.empty() ? "" : " (" + local + ")");
  }
  std::vector<int> reports(static_cast<std::size_t>(size), -1);
  std::vector<MPI_Request> recvs(static_cast<std::size_t>(size), MPI_REQUEST_NULL);
  for (int r = 1; r < size; ++r)
    MPI_Irecv(&reports[r], 1, MPI_INT, r, kReportTag, world, &recvs[r]);
  // Ranks still inside a longer wait answer this from there (answer_ping).
  static int ping = 0;
  std::vector<MPI_Request> pings(static_cast<std::size_t>(size), MPI_REQUEST_NULL);
  if (world == g_world)
    for (int r = 1; r < size; ++r) MPI_Isend(&ping, 1, MPI_INT, r, kPingTag, world, &pings[r]);
  std::vector<bool> answered(static_cast<std::size_t>(size), false);
  answered[0] = true;
  for (const auto deadline = until(grace_s); clock::now() < deadline; nap()) {
    bool all = true;
    for (int r = 1; r < size; ++r) {
      if (!answered[r] && test(recvs[r])) answered[r] = true;
      all = all && answered[r];
    }
    if (all) break;
  }
  std::string missing;
  int count = 0;
  for (int r = 1; r < size; ++r)
    if (!answered[r]) missing += (count++ ? ", " : "") + std::to_string(r);
  std::string verdict =
      count == 0
          ? "every rank answered rank 0 (none is stopped: a message was lost or the ranks disagree)"
          : std::string(count == 1 ? "rank " : "ranks ") + missing + " did not answer within " +
                seconds_text(grace_s) + " s: " + (count == 1 ? "it is" : "they are") +
                " stopped, stuck or gone";
  if (const std::string local = stopped_ranks_on_this_node(); !local.empty())
    verdict += " (" + local + ")";
  verdict.resize(std::min(verdict.size(), kVerdictBytes - 1));
  std::vector<MPI_Request> sends;
  for (int r = 1; r < size; ++r)
    if (answered[r]) {
      sends.push_back(MPI_REQUEST_NULL);
      MPI_Isend(verdict.data(), static_cast<int>(verdict.size()) + 1, MPI_CHAR, r, kVerdictTag,
                world, &sends.back());
    }
  for (const auto deadline = until(0.5); clock::now() < deadline; nap()) {
    bool all = true;
    for (MPI_Request& s : sends) all = test(s) && all;
    if (all) break;
  }
  return verdict;
}

namespace {

std::atomic<long long> g_deadline_ns{0};  // steady_clock; 0: disarmed
std::atomic<const char*> g_guarded{nullptr};
std::atomic<double> g_guard_timeout{0};

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void watch() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const long long deadline = g_deadline_ns.load();
    if (deadline == 0 || now_ns() < deadline) continue;
    const std::string local = stopped_ranks_on_this_node();
    std::fprintf(
        stderr, "%s: rank %d: timed out after %s s in %s (another rank stopped or is stuck%s%s)\n",
        program_invocation_short_name, g_rank, seconds_text(g_guard_timeout.load()).c_str(),
        g_guarded.load(), local.empty() ? "" : ": ", local.c_str());
    std::fflush(stderr);
    std::_Exit(1);  // no MPI from this thread; mpirun ends the job when a rank exits early
  }
}

}  // namespace

WatchdogGuard::WatchdogGuard(double timeout_s, const char* what) {
  if (g_rank < 0) {  // record_ranks not called (ddlcalibrate): the rank is still worth naming
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  }
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watch).detach(); });
  const double bounded = timeout_s < 1e9 ? timeout_s : 1e9;  // see poll_until
  g_guarded.store(what);
  g_guard_timeout.store(timeout_s);
  g_deadline_ns.store(now_ns() + static_cast<long long>(bounded * 1e9));
}

WatchdogGuard::~WatchdogGuard() {
  g_deadline_ns.store(0);
}

void fault_point(const char* point) {
  static const char* spec = std::getenv("DDLRUN_FAULT");
  static bool fired = false;
  if (!spec || fired) return;
  char action[8] = {}, where[32] = {};
  int rank = -1;
  if (std::sscanf(spec, "%7[a-z]:%d:%31s", action, &rank, where) != 3) return;
  if (rank != g_rank || std::strcmp(where, point) != 0) return;
  fired = true;
  raise(std::strcmp(action, "kill") == 0 ? SIGKILL : SIGSTOP);
}

}  // namespace ddl
