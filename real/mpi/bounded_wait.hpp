// Bounded polling: the real backends never block inside MPI or CUDA. They poll completion
// (MPI_Test, cudaEventQuery) against a deadline, so a lost message becomes ddl::Timeout naming
// what was awaited instead of a hang. Polling backs off to sched_yield after a 50 us spin so
// several ranks oversubscribing a few cores still let each other run.
#pragma once

#include <sched.h>
#include <time.h>

#include <chrono>
#include <string>

#include "algorithms/error.hpp"

namespace ddl {

// Calls done() until it returns true. After timeout_s seconds throws Timeout with the text
// describe() returns (called only then); on_timeout() then releases what was awaited.
template <typename Done, typename Describe, typename OnTimeout>
void poll_until(Done&& done, double timeout_s, Describe&& describe, OnTimeout&& on_timeout,
                bool quiet = false) {
  using clock = std::chrono::steady_clock;
  // Clamped: a deadline past ~9.2e9 s overflows the clock's nanoseconds into the past, so a
  // huge timeout would expire at once (the tools refuse more than kMaxTimeout anyway).
  constexpr double kLongest = 1e9;
  const double bounded_s = timeout_s < kLongest ? timeout_s : kLongest;
  const auto start = clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(bounded_s));
  // Spin at full speed for kSpin first: most waits of a collective end within microseconds
  // (a message nearly there, a peer's copy finishing), and a sched_yield costs a system call
  // each time, or the core, when other work is runnable. A fixed count of polls was too short:
  // at 16 KB between two ranks a send's completion arrives after a process_vm_readv copy, past
  // 100 polls, and 44 % of the collective's samples were then in sched_yield. After the spin,
  // yield (or sleep, when quiet) so ranks oversubscribing a few cores still let each other run.
  constexpr auto kSpin = std::chrono::microseconds(50);
  const auto spin_until = start + kSpin;
  bool spinning = true;
  for (unsigned long polls = 0;; ++polls) {
    if (done()) return;
    if ((polls & 15u) != 15u) continue;
    const auto now = clock::now();
    if (spinning) {
      spinning = now < spin_until;
      continue;
    }
    if (now >= deadline) {
      std::string why = describe();
      on_timeout();
      throw Timeout(why);
    }
    if (quiet) {
      const timespec pause{0, 50000};
      nanosleep(&pause, nullptr);
    } else {
      sched_yield();
    }
  }
}

}  // namespace ddl
