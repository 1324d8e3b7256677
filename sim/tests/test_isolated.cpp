// sim::run_isolated (sim/isolated.hpp): jobs in child processes of their own, their results or
// errors back in the parent, hung or dying children reported, nothing left running; and a
// simulation per child, from a parent that never started an engine and from one that loaded a
// platform.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <simgrid/s4u/Engine.hpp>

#include "algorithms/error.hpp"
#include "child_process.hpp"
#include "sim/isolated.hpp"
#include "sim/platform.hpp"
#include "sim/sweep.hpp"

using ddl::sim::IsolatedJob;
using ddl::sim::run_isolated;

namespace {

// A file the child writes its pid to, so the parent can check it is gone.
struct PidFile {
  std::string path = "/tmp/ddl_isolated_" + std::to_string(getpid()) + "_" +
                     std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".pid";
  ~PidFile() { std::remove(path.c_str()); }
  void write_own() const { std::ofstream(path) << getpid() << std::flush; }
  pid_t read() const {
    pid_t pid = 0;
    std::ifstream(path) >> pid;
    return pid;
  }
};

// Whether `pid` names no process any more: killed and reaped, not a zombie.
bool gone(pid_t pid) {
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

[[noreturn]] void hang(const PidFile& file) {
  file.write_own();
  while (true) pause();
}

}  // namespace

TEST_CASE("isolated: results come back in order, several children at once", "[sim][isolated]") {
  std::vector<IsolatedJob> jobs;
  for (int k = 0; k < 5; ++k)
    jobs.push_back({"job " + std::to_string(k), [k] {
                      // Each in a process of its own: none sees another's pid.
                      return std::to_string(k) + " " + std::to_string(getpid());
                    }});
  // Bytes of every value, and more than a pipe holds at once.
  std::string big(1 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  jobs.push_back({"big", [&big] { return big; }});
  std::vector<std::size_t> seen;
  const std::vector<std::string> results =
      run_isolated(jobs, 3, 60, [&](std::size_t done, std::size_t total) {
        CHECK(total == jobs.size());
        seen.push_back(done);
      });
  REQUIRE(results.size() == jobs.size());
  std::set<std::string> pids{std::to_string(getpid())};
  for (int k = 0; k < 5; ++k) {
    const std::string& r = results[static_cast<std::size_t>(k)];
    CHECK(r.substr(0, r.find(' ')) == std::to_string(k));
    pids.insert(r.substr(r.find(' ') + 1));
  }
  CHECK(pids.size() == 6);
  CHECK(results[5] == big);
  CHECK(seen == std::vector<std::size_t>{1, 2, 3, 4, 5, 6});
  CHECK(run_isolated({"one", [] { return std::string("alone"); }}, 60) == "alone");
}

TEST_CASE("isolated: what the parent buffered is written once", "[sim][isolated]") {
  const std::string path = "/tmp/ddl_isolated_buffered_" + std::to_string(getpid()) + ".txt";
  FILE* out = std::fopen(path.c_str(), "w");
  REQUIRE(out != nullptr);
  std::fputs("parent's line\n", out);  // still in the stream's buffer
  // SimGrid flushes every stream as its engine ends; a child doing so wrote the line twice.
  run_isolated({"flushing job", [] { return std::to_string(std::fflush(nullptr)); }}, 60);
  std::fclose(out);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "parent's line\n");
  std::remove(path.c_str());
}

TEST_CASE("isolated: an error in the child reaches the parent with its message and type",
          "[sim][isolated]") {
  CHECK_THROWS_MATCHES(
      run_isolated({"bad", []() -> std::string { throw ddl::InvalidArgument("bad dims 'x'"); }},
                   60),
      ddl::InvalidArgument, Catch::Message("bad dims 'x'"));
  CHECK_THROWS_MATCHES(
      run_isolated({"late", []() -> std::string { throw ddl::Timeout("rank 1: no answer"); }}, 60),
      ddl::Timeout, Catch::Message("rank 1: no answer"));
  CHECK_THROWS_MATCHES(
      run_isolated({"odd", []() -> std::string { throw std::runtime_error("out of luck"); }}, 60),
      ddl::BackendError, Catch::Message("out of luck"));
}

TEST_CASE("isolated: a child that hangs is killed at the timeout", "[sim][isolated]") {
  const PidFile file;
  CHECK_THROWS_MATCHES(run_isolated({"hanging job", [&]() -> std::string { hang(file); }}, 1),
                       ddl::BackendError, Catch::Message("hanging job: no result within 1 s"));
  CHECK(gone(file.read()));
}

TEST_CASE("isolated: a child that dies or exits without a result is reported", "[sim][isolated]") {
  CHECK_THROWS_MATCHES(run_isolated({"crashing job",
                                     []() -> std::string {
                                       // Catch's own handler would report it: the default dies.
                                       std::signal(SIGABRT, SIG_DFL);
                                       std::abort();
                                     }},
                                    60),
                       ddl::BackendError,
                       Catch::Message(std::string("crashing job: the process died of signal ") +
                                      std::to_string(SIGABRT) + " (" + strsignal(SIGABRT) + ")"));
  CHECK_THROWS_MATCHES(run_isolated({"quitting job", []() -> std::string { _exit(3); }}, 60),
                       ddl::BackendError,
                       Catch::Message("quitting job: the process exited with status 3 and no "
                                      "result"));
}

TEST_CASE("isolated: the first error ends the other children", "[sim][isolated]") {
  const PidFile file;
  const std::vector<IsolatedJob> jobs = {
      {"hanging job", [&]() -> std::string { hang(file); }},
      {"failing job",
       [&]() -> std::string {
         // Fails once the other child is surely running.
         while (file.read() == 0) usleep(1000);
         throw ddl::InvalidArgument("failed");
       }},
  };
  CHECK_THROWS_MATCHES(run_isolated(jobs, 2, 60), ddl::InvalidArgument, Catch::Message("failed"));
  CHECK(gone(file.read()));
}

TEST_CASE("isolated: one simulation per child, with or without the parent's platform",
          "[sim][isolated]") {
  const std::string file = ddl::test::platform("s822lc_1.xml");
  auto simulate = [](const ddl::sim::Platform& platform) {
    ddl::sim::SweepConfig config;
    config.algos = {"ring"};
    config.sizes = {std::size_t{1} << 20};
    const auto rows = ddl::sim::run_sweep(platform, config);
    if (rows.size() != 1)
      throw ddl::BackendError("one case, " + std::to_string(rows.size()) + " rows");
    char time[32];
    std::snprintf(time, sizeof time, "%.17g", rows[0].time_s);
    return std::string(time);
  };
  // The parent has no engine: each child starts its own and loads the platform.
  const IsolatedJob own = {"own engine", [&] {
                             auto& engine = ddl::sim::start_engine("test_isolated");
                             return simulate(ddl::sim::load_platform(engine, file));
                           }};
  const std::vector<std::string> fresh = run_isolated({own, own}, 2, 120);
  CHECK(std::stod(fresh[0]) > 0);
  CHECK(fresh[1] == fresh[0]);
  // The parent loaded the platform (and never runs it): each child runs it once, as the planner's.
  auto& engine = ddl::sim::start_engine("test_isolated");
  const ddl::sim::Platform platform = ddl::sim::load_platform(engine, file);
  const IsolatedJob inherited = {"inherited platform", [&] { return simulate(platform); }};
  const std::vector<std::string> again = run_isolated({inherited, inherited}, 1, 120);
  CHECK(again == fresh);
}
