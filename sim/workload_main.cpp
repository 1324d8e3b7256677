#include "sim/workload_main.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <simgrid/s4u/Host.hpp>

#include "algorithms/error.hpp"
#include "harness/progress.hpp"
#include "harness/sizes.hpp"
#include "harness/workload.hpp"
#include "harness/workload_cli.hpp"
#include "harness/workload_report.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/platform_options.hpp"
#include "sim/workload_run.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace ddl::sim {

namespace {

using WorkloadArgs = harness::WorkloadChoice;

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  return buf;
}

std::vector<std::string> header_lines(const WorkloadArgs& a, const harness::IterationPlan& plan,
                                      const harness::TrainingEffects& effects,
                                      const std::string& where) {
  double forward = 0;
  for (double s : plan.forward_s) forward += s;
  return {
      "ddlsim: workload " + a.workload.model + " (" + a.file + "), " +
          std::to_string(a.workload.layers.size()) + " layers, " + std::to_string(plan.params) +
          " parameters, batch " + std::to_string(a.batch) + " per GPU",
      "compute per iteration: forward " + ms(forward) + ", backward " +
          ms(plan.compute_s() - forward) + " (" + ms(a.workload.reference_iteration_s) +
          " at batch " + std::to_string(a.workload.reference_batch) +
          ", linear in the batch), then the optimizer step (one reduce of the gradients into the "
          "weights)",
      "gradient buckets: " + std::to_string(plan.buckets.size()) + " of " +
          std::string(to_string(a.dtype)) + " gradients (first " +
          harness::format_size(a.buckets.first_bucket_bytes) + ", then " +
          harness::format_size(a.buckets.bucket_bytes) +
          "), each allreduce overlaps the rest of the backward pass",
      "effects (training_effects.hpp): " + effects.describe(),
      where,
  };
}

// The GPU hosts' ddl_compute_interference (the same on every GPU host, else an error); 0 when
// none has it.
double platform_interference(const Platform& platform) {
  std::optional<std::string> value;
  for (const simgrid::s4u::Host* host : platform.gpus) {
    const char* p = host->get_property("ddl_compute_interference");
    const std::string v = p ? p : "";
    if (!value) value = v;
    if (*value != v)
      throw InvalidArgument(platform.file + ": GPU hosts disagree on ddl_compute_interference ('" +
                            *value + "' and '" + v + "' on " + host->get_name() + ")");
  }
  if (!value || value->empty()) return 0;
  double f = 0;
  const auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), f);
  if (ec != std::errc() || ptr != value->data() + value->size() || !std::isfinite(f) || f < 0 ||
      f > 10)
    throw InvalidArgument(platform.file + ": ddl_compute_interference '" + *value +
                          "' is not a number in [0, 10]");
  return f;
}

// The platform family of --sweep: <dir>/<stem>_<N>.xml for every N present, in increasing N.
std::vector<std::string> family_of(const std::string& platform_file) {
  const fs::path path(platform_file);
  std::smatch m;
  const std::string name = path.filename().string();
  if (!std::regex_match(name, m, std::regex(R"((.+)_([0-9]+)\.xml)")))
    throw InvalidArgument(
        "--sweep needs a platform named <family>_<N>.xml (e.g. s822lc_64.xml), got '" + name + "'");
  const std::regex member(
      std::regex_replace(m[1].str(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
      "_([0-9]+)\\.xml");
  std::vector<std::pair<long, std::string>> found;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    std::smatch mm;
    if (std::regex_match(f, mm, member))
      found.emplace_back(std::stol(mm[1].str()), e.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> files;
  for (const auto& f : found) files.push_back(f.second);
  return files;
}

// Runs this program again (one SimGrid Engine per process) and returns its stdout; its stderr
// goes straight to ours, so a failing size explains itself.
std::string run_self(const std::vector<std::string>& args) {
  int out[2];
  if (pipe(out) != 0) throw BackendError("--sweep: pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw BackendError("--sweep: fork failed");
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw BackendError("--sweep: the run on " + args[2] + " failed (see its message above)");
  return text;
}

int run_sweep_mode(const po::variables_map& vm, const harness::CommonOptions& common,
                   const std::string& platform_file, const WorkloadArgs& a) {
  if (common.dims)
    throw InvalidArgument(
        "--dims does not go with --sweep: each size runs on its own natural grid");
  if (!common.methods.empty())
    throw InvalidArgument(
        "--methods does not go with --sweep: each size runs on its own natural grid");
  if (vm.count("hostfile"))
    throw InvalidArgument(
        "--hostfile does not go with --sweep: each size of the family has its own hosts");
  const std::vector<std::string> files = family_of(platform_file);
  std::vector<harness::WorkloadRow> rows;
  std::size_t sizes_run = 0;
  harness::Progress progress("ddlsim", files.size());
  for (const std::string& file : files) {
    std::vector<std::string> args = {"ddlsim",
                                     "--platform",
                                     file,
                                     "--workload",
                                     a.file,
                                     "--batch",
                                     std::to_string(a.batch),
                                     "--bucket",
                                     vm["bucket"].as<std::string>(),
                                     "--first-bucket",
                                     vm["first-bucket"].as<std::string>(),
                                     "-d",
                                     vm["dtype"].as<std::string>(),
                                     "--algo",
                                     vm["algo"].as<std::string>(),
                                     "--segment",
                                     vm["segment"].as<std::string>(),
                                     "-n",
                                     std::to_string(common.iters),
                                     "-w",
                                     std::to_string(common.warmup),
                                     "--format",
                                     "csv"};
    if (!vm["rings"].defaulted()) {  // given only when given: no algorithm of --algo may take it
      args.push_back("--rings");
      args.push_back(std::to_string(common.rings));
    }
    for (const char* flag : {"jitter", "seed", "interference", "bucket-launch", "data-loading"})
      if (vm.count(flag)) {
        args.push_back(std::string("--") + flag);
        args.push_back(vm[flag].as<std::string>());
      }
    if (a.effects_off) args.push_back("--no-effects");
    if (vm.count("memory-bandwidth")) {
      args.push_back("--memory-bandwidth");
      args.push_back(vm["memory-bandwidth"].as<std::string>());
    }
    if (vm.count("cfg"))
      for (const std::string& c : vm["cfg"].as<std::vector<std::string>>()) {
        args.push_back("--cfg");
        args.push_back(c);
      }
    if (vm.count("sweep-max-gpus")) {
      args.push_back("--sweep-max-gpus");
      args.push_back(std::to_string(vm["sweep-max-gpus"].as<int>()));
    }
    std::vector<harness::WorkloadRow> found = harness::parse_workload_csv(run_self(args), a.batch);
    progress.step(fs::path(file).filename().string());
    // No rows: this size is over --sweep-max-gpus, and so is every larger one.
    if (found.empty()) break;
    ++sizes_run;
    for (harness::WorkloadRow& r : found) rows.push_back(std::move(r));
  }
  const harness::IterationPlan plan = harness::plan_iteration(a.workload, a.batch, a.buckets);
  harness::write_workload_report(
      std::cout, common.format, rows,
      header_lines(a, plan, a.effects,
                   "platform family of " + platform_file + ": " + std::to_string(sizes_run) +
                       " sizes, one simulation process each"));
  return 0;
}

}  // namespace

void add_workload_options(po::options_description& desc) {
  harness::add_workload_options(desc);
  desc.add_options()("sweep", po::bool_switch(),
                     "--workload: every <family>_<N>.xml beside --platform, one row per GPU count")(
      "sweep-max-gpus", po::value<int>(),
      "--workload: run no platform with more GPUs than this (--sweep stops at the first such "
      "size)");
}

bool workload_requested(const po::variables_map& vm) {
  return vm.count("workload") > 0;
}

int run_workload_mode(const po::variables_map& vm, const harness::CommonOptions& common,
                      const std::string& platform_file, const std::string& workloads_dir,
                      const char* program) {
  if (common.check)
    throw InvalidArgument("--check does not go with --workload: workload runs are timing-only");
  const WorkloadArgs a = harness::read_workload_options(vm, workloads_dir);
  const int max_gpus = vm.count("sweep-max-gpus") ? vm["sweep-max-gpus"].as<int>() : 0;
  if (vm.count("sweep-max-gpus") && max_gpus < 1)
    throw InvalidArgument("--sweep-max-gpus must be at least 1, got " + std::to_string(max_gpus));
  if (vm["sweep"].as<bool>()) return run_sweep_mode(vm, common, platform_file, a);

  const PlatformFlags platform_flags = read_platform_flags(vm);
  const PlatformSource source(platform_file);
  simgrid::s4u::Engine& engine = start_engine(program, platform_flags.cfg);
  Platform platform = load_platform(engine, source.xml(), platform_flags.choice);
  platform.file = source.shown();
  if (vm.count("sweep-max-gpus") && platform.ranks() > max_gpus) {
    // The csv header alone: the sweep reads "no rows" as "past the limit".
    harness::write_workload_report(
        std::cout, common.format, {},
        {"platform " + platform.file + " has " + std::to_string(platform.ranks()) +
         " GPUs, more than --sweep-max-gpus " + std::to_string(max_gpus) + ": not run"});
    return 0;
  }
  const Dims dims = choose_dims(platform, common.dims);
  WorkloadRunConfig config;
  config.plan = harness::plan_iteration(a.workload, a.batch, a.buckets);
  config.algos = harness::runnable_algorithms(common, false);  // as ddlsim's sweep: no direct
  require_shared_memory(platform, config.algos);
  config.options = harness::algorithm_options(common, dims);
  config.options.cost = platform_costs(platform, dims);
  config.effects = a.effects;
  config.dtype = a.dtype;
  if (!a.effects_off && !a.interference_flag)
    config.effects.interference = platform_interference(platform);
  config.iters = common.iters;
  config.warmup = common.warmup;
  std::vector<harness::WorkloadRow> rows;
  for (const WorkloadResult& r : run_workload(platform, config))
    rows.push_back(
        {platform.ranks(), r.algo, dims.to_string(), a.batch, r.iteration_s, r.compute_s});
  std::vector<std::string> header =
      header_lines(a, config.plan, config.effects,
                   "platform " + platform.file + ", " + std::to_string(platform.ranks()) +
                       " GPUs, dims " + dims.to_string());
  if (const std::string note = extrapolation_note(*platform.extrapolation); !note.empty())
    header.push_back(note);
  harness::write_workload_report(std::cout, common.format, rows, header);
  return 0;
}

}  // namespace ddl::sim
