// One door to a fresh SimGrid engine: SimGrid runs its engine once per process, so a function
// that runs a simulation runs in a forked child of its own, and what it returns comes back over
// a pipe. The child inherits the parent's memory: a platform the parent loaded (the planner's
// children each run it once), the registered algorithms, the parsed options; or nothing of
// SimGrid when the parent never started an engine (the workload sweep's children start their
// own). No command line is rebuilt and nothing is executed again.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ddl::sim {

struct IsolatedJob {
  std::string what;                  // names the job in errors: "simulating 8 B"
  std::function<std::string()> run;  // in the child: its result, any bytes
};

// Called in the parent after each job ends (done of total), in the order they end.
using IsolatedDone = std::function<void(std::size_t done, std::size_t total)>;

// Runs every job in a child process of its own, at most `parallel` at once, and returns their
// results in the order of `jobs`. An error thrown by a job reaches the parent with its message
// and its type (InvalidArgument, Timeout, BackendError; any other ddl::Error or std::exception
// as BackendError). A job without a result after `timeout_s` seconds is killed: BackendError
// "WHAT: no result within N s"; a child that dies of a signal or exits without a result:
// BackendError naming the job and the signal or status. On the first error every other child
// is killed and reaped before it is thrown; nothing is left running.
std::vector<std::string> run_isolated(const std::vector<IsolatedJob>& jobs, std::size_t parallel,
                                      double timeout_s, const IsolatedDone& done = {});

// One job, as above.
std::string run_isolated(const IsolatedJob& job, double timeout_s);

}  // namespace ddl::sim
