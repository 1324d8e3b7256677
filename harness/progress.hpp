// Progress of a long run on stderr, so a sweep that takes minutes does not look hung: silent for
// the first `quiet_s` seconds of wall time (a quick run prints nothing, and the tools' output
// stays exactly their table), then at most one line every `every_s` seconds:
//   ddlrun: 5/24 done (ddl 16 MB) after 12 s
// rewritten in place on a terminal, one line each otherwise (a log). stdout, where the results
// go, is never touched. Header-only: every tool and backend uses it.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace ddl::harness {

class Progress {
 public:
  Progress(std::string tool, std::size_t total, double quiet_s = 3, double every_s = 5)
      : tool_(std::move(tool)),
        total_(total),
        quiet_s_(quiet_s),
        every_s_(every_s),
        start_(Clock::now()),
        last_(start_),
        tty_(isatty(STDERR_FILENO) == 1) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { end_line(); }

  // One more of `total` is done; `what` names it (e.g. "ddl 16 MB").
  void step(const std::string& what) {
    ++done_;
    const Clock::time_point now = Clock::now();
    const double elapsed = seconds(now - start_);
    if (done_ == total_ || elapsed < quiet_s_ || (printed_ && seconds(now - last_) < every_s_))
      return;
    std::fprintf(stderr, "%s%s: %zu/%zu done (%s) after %.0f s%s", tty_ ? "\r" : "", tool_.c_str(),
                 done_, total_, what.c_str(), elapsed, tty_ ? "" : "\n");
    std::fflush(stderr);
    printed_ = true;
    open_ = tty_;
    last_ = now;
  }

  // Ends the line a terminal shows rewritten in place, so what a tool prints next on the same
  // terminal (a result row as soon as it is known) starts a line of its own.
  void end_line() {
    if (!open_) return;
    std::fputc('\n', stderr);
    std::fflush(stderr);
    open_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

  std::string tool_;
  std::size_t total_;
  double quiet_s_, every_s_;
  Clock::time_point start_, last_;
  std::size_t done_ = 0;
  bool tty_;
  bool printed_ = false;
  bool open_ = false;  // a line rewritten in place is not ended yet
};

}  // namespace ddl::harness
