// MPI_Init has no bound of its own: it waits for every process of the job, so a process that
// mpirun started but that never joins (it is stuck before MPI_Init, or is no MPI program:
// `mpirun -np 1 ddlrun : -np 1 sleep 60`) keeps the others in it for as long as it lives. The
// tools bound it by their --timeout, read from the command line before MPI is up (the full
// parse, with its messages, runs after MPI_Init as before).
//
// Header-only and free of MPI: ddlsim (tools/sim_ranks/sweep_mpi.cpp) uses it without the real
// backend.
#pragma once

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace ddl {

// The value of `--timeout S` or `--timeout=S` in argv when it is a finite number of seconds
// > 0, else `fallback_s` (the flag's default: a bad value is reported by the tool's own parse
// once MPI is up, and start-up is bounded by the default meanwhile).
inline double startup_timeout(int argc, char** argv, double fallback_s) {
  constexpr const char* flag = "--timeout";
  const std::size_t length = std::strlen(flag);
  const char* text = nullptr;
  for (int i = 1; i < argc && argv[i] != nullptr; ++i) {
    if (std::strcmp(argv[i], flag) == 0 && i + 1 < argc) text = argv[i + 1];
    if (std::strncmp(argv[i], flag, length) == 0 && argv[i][length] == '=')
      text = argv[i] + length + 1;
  }
  if (text == nullptr || *text == '\0') return fallback_s;
  char* end = nullptr;
  const double s = std::strtod(text, &end);
  return *end == '\0' && std::isfinite(s) && s > 0 ? s : fallback_s;
}

// Armed from construction to destruction (around MPI_Init): past timeout_s it prints
// "TOOL: MPI start-up did not complete within S s (...)" and ends the process with status 1,
// which makes mpirun stop the whole job.
class StartupBound {
 public:
  StartupBound(const char* tool, double timeout_s)
      : watcher_([this, tool, timeout_s] { watch(tool, timeout_s); }) {}
  ~StartupBound() {
    {
      const std::lock_guard<std::mutex> guard(lock_);
      done_ = true;
    }
    woken_.notify_one();
    watcher_.join();
  }
  StartupBound(const StartupBound&) = delete;
  StartupBound& operator=(const StartupBound&) = delete;

 private:
  void watch(const char* tool, double timeout_s) {
    std::unique_lock<std::mutex> guard(lock_);
    // Clamped as poll_until's deadlines are: a huge bound must not overflow the clock.
    const std::chrono::duration<double> bound(timeout_s < 1e9 ? timeout_s : 1e9);
    if (woken_.wait_for(guard, bound, [this] { return done_; })) return;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
    std::fprintf(stderr,
                 "%s: MPI start-up did not complete within %s s (--timeout): MPI_Init waits for "
                 "every process of the job, and one of them has not joined (not started, stuck "
                 "before MPI_Init, or not an MPI program)\n",
                 tool, seconds);
    std::fflush(stderr);
    std::_Exit(1);
  }

  std::mutex lock_;
  std::condition_variable woken_;
  bool done_ = false;
  std::thread watcher_;  // last: started once the members it uses exist
};

}  // namespace ddl
