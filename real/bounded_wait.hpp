// Bounded polling: the real backends never block inside MPI or CUDA. They poll completion
// (MPI_Test, cudaEventQuery) against a deadline, so a lost message becomes ddl::Timeout naming
// what was awaited instead of a hang. Polling backs off to sched_yield after a short spin so
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
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(bounded_s));
  // A short spin catches the common case (the message is nearly there) at full speed.
  constexpr int kSpins = 100;
  for (unsigned long polls = 0;; ++polls) {
    if (done()) return;
    if (polls >= kSpins) {
      if ((polls & 15u) == 0 && clock::now() >= deadline) {
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
}

}  // namespace ddl
