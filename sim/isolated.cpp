#include "sim/isolated.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "algorithms/error.hpp"

namespace ddl::sim {

namespace {

using Clock = std::chrono::steady_clock;

// The first byte a child writes: its result follows, or an error message of that type.
constexpr char kResult = 'R';
constexpr char kInvalidArgument = 'I';
constexpr char kTimeout = 'T';
constexpr char kBackendError = 'B';
constexpr char kOtherError = 'E';

bool write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

// In the child: run the job, send its result or its error; never returns. _exit, not exit: the
// parent's buffered output and its objects' destructors are the parent's to flush and run.
[[noreturn]] void run_child(const IsolatedJob& job, int fd) {
  std::string message;
  try {
    message = kResult + job.run();
  } catch (const InvalidArgument& e) {
    message = kInvalidArgument + std::string(e.what());
  } catch (const Timeout& e) {
    message = kTimeout + std::string(e.what());
  } catch (const BackendError& e) {
    message = kBackendError + std::string(e.what());
  } catch (const std::exception& e) {
    message = kOtherError + std::string(e.what());
  } catch (...) {
    message = kOtherError + std::string("an exception that is no std::exception");
  }
  const bool sent = write_all(fd, message);
  close(fd);
  _exit(sent && message[0] == kResult ? 0 : 1);
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::size_t job = 0;
  Clock::time_point deadline;
  std::string message;
};

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

void kill_and_reap(Child& c) {
  kill(c.pid, SIGKILL);
  close(c.fd);
  waitpid(c.pid, nullptr, 0);
}

// The status of a child whose pipe reached its end: it closes the pipe as it exits, so this is
// at once, unless it closed the pipe and went on; then it is killed at its deadline.
int reap(const Child& c, const std::string& what, double timeout_s) {
  int status = 0;
  while (true) {
    const pid_t r = waitpid(c.pid, &status, WNOHANG);
    if (r == c.pid) return status;
    if (r < 0 && errno != EINTR) throw BackendError(what + ": waitpid failed");
    if (Clock::now() >= c.deadline) {
      kill(c.pid, SIGKILL);
      waitpid(c.pid, nullptr, 0);
      throw BackendError(what + ": no result within " + seconds_text(timeout_s) + " s");
    }
    usleep(1000);
  }
}

// What a child that ended (its pipe at end of file, reaped with `status`) returned, or its error.
std::string outcome(const Child& c, const std::string& what, int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    throw BackendError(what + ": the process died of signal " + std::to_string(sig) + " (" +
                       strsignal(sig) + ")");
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::string text = c.message.empty() ? std::string() : c.message.substr(1);
  if (code == 0 && !c.message.empty() && c.message[0] == kResult) return text;
  if (code == 1 && !c.message.empty()) {
    switch (c.message[0]) {
      case kInvalidArgument: throw InvalidArgument(text);
      case kTimeout: throw Timeout(text);
      case kBackendError:
      case kOtherError: throw BackendError(text);
      default: break;
    }
  }
  throw BackendError(what + ": the process exited with status " + std::to_string(code) +
                     " and no result");
}

}  // namespace

std::vector<std::string> run_isolated(const std::vector<IsolatedJob>& jobs, std::size_t parallel,
                                      double timeout_s, const IsolatedDone& done) {
  std::vector<std::string> results(jobs.size());
  std::vector<Child> running;
  // Clamped as bounded_wait.hpp does: a huge timeout must not overflow into the past.
  const auto limit = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::min(timeout_s, 1e9)));
  std::size_t next = 0, finished = 0;
  try {
    while (finished < jobs.size()) {
      while (next < jobs.size() && running.size() < std::max<std::size_t>(parallel, 1)) {
        int fds[2];
        // Close-on-exec: a process the job starts (a generator) must not hold the pipe open.
        if (pipe2(fds, O_CLOEXEC) != 0) throw BackendError(jobs[next].what + ": pipe failed");
        // What the parent buffered is the parent's to write: a child that flushes (SimGrid does
        // as its engine ends) would write it again.
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid < 0) {
          close(fds[0]);
          close(fds[1]);
          throw BackendError(jobs[next].what + ": fork failed");
        }
        if (pid == 0) {
          close(fds[0]);
          run_child(jobs[next], fds[1]);
        }
        close(fds[1]);
        running.push_back({pid, fds[0], next, Clock::now() + limit, {}});
        ++next;
      }
      // Wait for output, an end of file or the nearest deadline, whichever comes first.
      const Clock::time_point nearest =
          std::min_element(running.begin(), running.end(), [](const Child& a, const Child& b) {
            return a.deadline < b.deadline;
          })->deadline;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(nearest - Clock::now()).count();
      std::vector<pollfd> polled;
      for (const Child& c : running) polled.push_back({c.fd, POLLIN, 0});
      const int ready = poll(polled.data(), polled.size(),
                             static_cast<int>(std::clamp<long long>(left + 1, 0, 60'000)));
      if (ready < 0 && errno != EINTR) throw BackendError("waiting for a simulation: poll failed");
      for (std::size_t i = running.size(); i-- > 0;) {
        Child& c = running[i];
        bool ended = false;
        if (ready > 0 && polled[i].revents != 0) {
          char buf[65536];
          const ssize_t n = read(c.fd, buf, sizeof buf);
          if (n > 0) c.message.append(buf, static_cast<std::size_t>(n));
          ended = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
        }
        if (!ended) {
          if (Clock::now() < c.deadline) continue;
          Child late = c;
          running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
          kill_and_reap(late);
          throw BackendError(jobs[late.job].what + ": no result within " + seconds_text(timeout_s) +
                             " s");
        }
        const Child ended_child = c;
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        close(ended_child.fd);
        const int status = reap(ended_child, jobs[ended_child.job].what, timeout_s);
        results[ended_child.job] = outcome(ended_child, jobs[ended_child.job].what, status);
        ++finished;
        if (done) done(finished, jobs.size());
      }
    }
  } catch (...) {
    for (Child& c : running) kill_and_reap(c);  // this call's own children only
    throw;
  }
  return results;
}

std::string run_isolated(const IsolatedJob& job, double timeout_s) {
  return run_isolated(std::vector<IsolatedJob>{job}, 1, timeout_s).front();
}

}  // namespace ddl::sim
