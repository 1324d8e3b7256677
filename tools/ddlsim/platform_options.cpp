#include "tools/ddlsim/platform_options.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "algorithms/error.hpp"
#include "harness/data_dir.hpp"
#include "harness/output_file.hpp"
#include "sim/platform_outline.hpp"

namespace po = boost::program_options;

namespace ddl::sim {

void add_platform_options(po::options_description& desc) {
  // clang-format off
  desc.add_options()
      ("hostfile", po::value<std::string>(),
       "ranks of a platform without ddl_rank hosts: one host per line, HOST or HOST:N for N "
       "consecutive ranks (SMPI's format; '#' lines skipped). Default: every host, one rank each, "
       "in SimGrid's host order (by name as strings)")
      ("memory-bandwidth", po::value<std::string>(),
       "bytes/s of local reduce and copy on GPU hosts without a memory_bandwidth property "
       "(e.g. 3.35e12 or 3350GBps; default 3.35e12, an H100 SXM5's HBM3)")
      ("exact", "play every step of every collective: no step extrapolation (by default a run "
       "of 64 or more alike steps of a ring or of ddl is played until the ranks share a steady "
       "pace and the rest is costed at it; sim/README.md gives its measured error); with --llm: "
       "play every rank's step on the simulator instead of the stages' first ranks on prices")
      ("cfg", po::value<std::vector<std::string>>()->composing(),
       "name:value, a SimGrid option set after ddl's CM02 model (repeatable; sim/README.md says "
       "which change results), e.g. --cfg network/model:LV08");
  // clang-format on
}

PlatformFlags read_platform_flags(const po::variables_map& vm) {
  PlatformFlags f;
  if (vm.count("hostfile")) f.choice.hostfile = vm["hostfile"].as<std::string>();
  if (vm.count("memory-bandwidth"))
    f.choice.memory_bandwidth = parse_memory_bandwidth(vm["memory-bandwidth"].as<std::string>());
  f.choice.exact = vm.count("exact") > 0;
  if (vm.count("cfg")) f.cfg = vm["cfg"].as<std::vector<std::string>>();
  return f;
}

namespace {

// The project's generator beside the data the tool uses: share/ddl/platforms when installed, the
// source tree's platforms/ in a build tree (harness/data_dir.hpp).
std::string generator_path() {
  return harness::data_dir() + "/platforms/generate.py";
}

struct GeneratorEnd {
  int status = 0;  // exit status; -1 when it did not exit by itself
  bool timed_out = false;
  bool too_large = false;  // its output passed kMaxPlatformBytes (SIGXFSZ)
  std::string err;
};

// Runs the generator (for `nodes` nodes when > 0, else the description's own count) with a
// deadline and its output bounded (RLIMIT_FSIZE: the kernel stops a write past the limit with
// SIGXFSZ), so a description of a billion nodes cannot fill the disk.
GeneratorEnd run_generator(const std::string& generator, const std::string& description, int nodes,
                           const std::string& output) {
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) throw BackendError("description: pipe failed");
  const std::string n = std::to_string(nodes);  // before the fork: the child only execs
  const pid_t pid = fork();
  if (pid < 0) throw BackendError("description: fork failed");
  if (pid == 0) {
    const rlimit size{kMaxPlatformBytes, kMaxPlatformBytes};
    setrlimit(RLIMIT_FSIZE, &size);
    dup2(err[1], STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    if (nodes > 0)
      execl(DDL_PYTHON, DDL_PYTHON, generator.c_str(), "--description", description.c_str(),
            "--nodes", n.c_str(), "-o", output.c_str(), static_cast<char*>(nullptr));
    else
      execl(DDL_PYTHON, DDL_PYTHON, generator.c_str(), "--description", description.c_str(), "-o",
            output.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(err[1]);
  std::string text;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(kGeneratorTimeoutSeconds);
  bool timed_out = false;
  for (char buf[4096];;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    pollfd p{err[0], POLLIN, 0};
    if (left <= 0 || poll(&p, 1, static_cast<int>(left)) == 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    const ssize_t n = read(err[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  GeneratorEnd end;
  end.err = std::move(text);
  end.timed_out = timed_out;
  end.too_large = WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ;
  end.status = !timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return end;
}

}  // namespace

bool is_description(const std::string& platform) {
  return platform.size() > 5 && platform.compare(platform.size() - 5, 5, ".json") == 0;
}

PlatformSource::PlatformSource(const std::string& platform, int nodes)
    : xml_(platform), shown_(platform) {
  if (!is_description(platform)) return;
  std::error_code ec;
  if (!std::filesystem::exists(platform, ec))
    throw InvalidArgument("platform description '" + platform + "' does not exist");
  check_readable(platform, "platform description", std::uintmax_t{16} << 20);
  char path[] = "/tmp/ddlsim_description_XXXXXX.xml";
  const int fd = mkstemps(path, 4);
  if (fd < 0) throw BackendError("description: cannot create a temporary file in /tmp");
  close(fd);
  xml_ = path;
  generated_ = true;
  const std::string generator = generator_path();
  const GeneratorEnd end = run_generator(generator, platform, nodes, xml_);
  if (nodes > 0) shown_ = platform + " (" + std::to_string(nodes) + " nodes)";
  if (end.status != 0) {
    std::string why = end.err;
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    if (end.timed_out)
      why = "it did not finish within " + std::to_string(kGeneratorTimeoutSeconds) + " s";
    else if (end.too_large)
      why = "its platform file grew past the " + std::to_string(kMaxPlatformBytes) +
            " bytes accepted";
    else if (why.empty())
      why = "it exited with status " + std::to_string(end.status);
    std::remove(xml_.c_str());
    generated_ = false;
    throw InvalidArgument("platform description '" + platform + "': " + generator +
                          " failed: " + why);
  }
}

PlatformSource::~PlatformSource() {
  if (generated_) std::remove(xml_.c_str());
}

}  // namespace ddl::sim
