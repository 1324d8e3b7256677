#include "planner/simulate.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include "algorithms/error.hpp"
#include "sim/sweep.hpp"

namespace ddl::planner {

namespace {

struct Child {
  pid_t pid;
  int fd;
  std::size_t job;
  std::string output;
};

// In the child: run the job's sweep and write one time per line; never returns.
[[noreturn]] void run_child(const sim::Platform& platform, const Options& options,
                            const SimulationJob& job, int fd, unsigned timeout_s) {
  alarm(timeout_s);  // a stuck simulation ends the child; the parent reports it
  int status = 0;
  try {
    sim::SweepConfig config;
    config.algos = job.algorithms;
    config.sizes = {job.bytes};
    config.options = options;
    std::ostringstream out;
    out.precision(17);
    for (const sim::CaseResult& r : sim::run_sweep(platform, config)) out << r.time_s << "\n";
    const std::string text = out.str();
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fd, text.data() + written, text.size() - written);
      if (n <= 0) throw BackendError("cannot write to the planner");
      written += static_cast<std::size_t>(n);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddlplan: simulating %zu B: %s\n", job.bytes, e.what());
    status = 1;
  }
  close(fd);
  _exit(status);
}

}  // namespace

std::vector<std::vector<double>> simulate_jobs(
    const sim::Platform& platform, const Options& options, const std::vector<SimulationJob>& jobs,
    int parallel, unsigned timeout_s, const std::function<void(std::size_t, std::size_t)>& done) {
  std::vector<std::vector<double>> times(jobs.size());
  std::map<pid_t, Child> running;
  std::size_t next = 0, finished = 0;
  auto finish = [&](Child& c, int status) {
    const SimulationJob& job = jobs[c.job];
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw BackendError("simulating " + std::to_string(job.bytes) + " B failed" +
                         (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
                              ? " (no result within " + std::to_string(timeout_s) + " s)"
                              : ""));
    std::istringstream in(c.output);
    double t;
    while (in >> t) times[c.job].push_back(t);
    if (times[c.job].size() != job.algorithms.size())
      throw BackendError("simulating " + std::to_string(job.bytes) + " B gave " +
                         std::to_string(times[c.job].size()) + " times for " +
                         std::to_string(job.algorithms.size()) + " algorithms");
    ++finished;
    if (done) done(finished, jobs.size());
  };
  try {
    while (finished < jobs.size()) {
      while (next < jobs.size() && static_cast<int>(running.size()) < parallel) {
        int fds[2];
        if (pipe(fds) != 0) throw BackendError("ddlplan: pipe failed");
        const pid_t pid = fork();
        if (pid < 0) throw BackendError("ddlplan: fork failed");
        if (pid == 0) {
          close(fds[0]);
          run_child(platform, options, jobs[next], fds[1], timeout_s);
        }
        close(fds[1]);
        running[pid] = Child{pid, fds[0], next, {}};
        ++next;
      }
      // Drain one child's output to its end (children write a few lines, then exit), then reap.
      Child& c = running.begin()->second;
      char buf[4096];
      for (ssize_t n; (n = read(c.fd, buf, sizeof buf)) > 0;)
        c.output.append(buf, static_cast<std::size_t>(n));
      close(c.fd);
      int status = 0;
      waitpid(c.pid, &status, 0);  // bounded: the child's alarm ends it within timeout_s
      Child mine = std::move(c);
      running.erase(mine.pid);
      finish(mine, status);
    }
  } catch (...) {
    for (auto& [pid, c] : running) {  // only this planner's own children
      kill(pid, SIGKILL);
      close(c.fd);
      waitpid(pid, nullptr, 0);
    }
    throw;
  }
  return times;
}

}  // namespace ddl::planner
