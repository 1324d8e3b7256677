#include "tools/ddlsim/workload_sweep.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "algorithms/error.hpp"
#include "harness/progress.hpp"
#include "tools/ddlsim/platform_options.hpp"
#include "tools/ddlsim/workload_header.hpp"
#include "workloads/workload_report.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace ddl::sim {

namespace {

// One size of the family: a SimGrid file, or a description at `nodes` nodes (generated when run).
struct Member {
  std::string file;
  int nodes = 0;
  std::string name() const {
    return nodes ? std::to_string(nodes) + (nodes == 1 ? " node" : " nodes")
                 : fs::path(file).filename().string();
  }
};

// <dir>/<stem>_<N>.xml for every N present, in increasing N.
std::vector<Member> file_family(const std::string& platform_file) {
  const fs::path path(platform_file);
  std::smatch m;
  const std::string name = path.filename().string();
  if (!std::regex_match(name, m, std::regex(R"((.+)_([0-9]+)\.xml)")))
    throw InvalidArgument(
        "--sweep needs a platform named <family>_<N>.xml (e.g. s822lc_64.xml) or a machine "
        "description NAME.json, got '" +
        name + "'");
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
  std::vector<Member> members;
  for (const auto& f : found) members.push_back({f.second, 0});
  return members;
}

// A positive integer at `key` of `object`, or InvalidArgument naming the description and field.
int positive_field(const nlohmann::json& object, const char* key, const std::string& description,
                   const std::string& field) {
  const auto it = object.is_object() ? object.find(key) : object.end();
  if (it == object.end() || !it->is_number_integer() || it->get<long long>() < 1 ||
      it->get<long long>() > 1'000'000)
    throw InvalidArgument("platform description '" + description + "': --sweep needs " + field +
                          ", a positive integer");
  return it->get<int>();
}

// The described machine at 1, 2, 4, ... nodes up to its own node count, or up to --sweep-max-gpus
// GPUs when given.
std::vector<Member> description_family(const std::string& description,
                                       std::optional<int> max_gpus) {
  std::ifstream in(description);
  if (!in) throw InvalidArgument("platform description '" + description + "' cannot be read");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument("platform description '" + description + "' is not JSON: " + e.what());
  }
  const int nodes = positive_field(j.value("network", nlohmann::json::object()), "nodes",
                                   description, "network.nodes");
  const int gpus =
      positive_field(j.value("node", nlohmann::json::object()), "gpus", description, "node.gpus");
  const int limit = max_gpus ? std::max(1, *max_gpus / gpus) : nodes;
  std::vector<Member> members;
  for (int n = 1; n < limit; n *= 2) members.push_back({description, n});
  members.push_back({description, limit});
  return members;
}

// Runs this program again (one SimGrid Engine per process) and returns its stdout; its stderr
// goes straight to ours, so a failing size explains itself.
std::string run_self(const std::vector<std::string>& args, const std::string& name) {
  int out[2];
  if (pipe(out) != 0) throw BackendError("--sweep: pipe failed");
  std::vector<char*> argv;  // built before the fork: the child only execs
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw BackendError("--sweep: fork failed");
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
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
    throw BackendError("--sweep: the run on " + name + " failed (see its message above)");
  return text;
}

// The child's command line: this run's workload flags on one platform file, as csv.
std::vector<std::string> child_arguments(const po::variables_map& vm,
                                         const harness::CommonOptions& common,
                                         const harness::WorkloadChoice& a,
                                         const std::string& platform) {
  std::vector<std::string> args = {"ddlsim",
                                   "--platform",
                                   platform,
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
  for (const char* flag :
       {"jitter", "seed", "interference", "bucket-launch", "data-loading", "memory-bandwidth"})
    if (vm.count(flag)) {
      args.push_back(std::string("--") + flag);
      args.push_back(vm[flag].as<std::string>());
    }
  if (a.effects_off) args.push_back("--no-effects");
  if (vm["no-compute-scaling"].as<bool>()) args.push_back("--no-compute-scaling");
  if (vm.count("cfg"))
    for (const std::string& c : vm["cfg"].as<std::vector<std::string>>()) {
      args.push_back("--cfg");
      args.push_back(c);
    }
  if (vm.count("sweep-max-gpus")) {
    args.push_back("--sweep-max-gpus");
    args.push_back(std::to_string(vm["sweep-max-gpus"].as<int>()));
  }
  return args;
}

}  // namespace

int run_workload_sweep(const po::variables_map& vm, const harness::CommonOptions& common,
                       const std::string& platform_file, const harness::WorkloadChoice& a,
                       harness::RunInfo info, std::ostream& out) {
  if (common.dims)
    throw InvalidArgument(
        "--dims does not go with --sweep: each size runs on its own natural grid");
  if (!common.methods.empty())
    throw InvalidArgument(
        "--methods does not go with --sweep: each size runs on its own natural grid");
  if (vm.count("hostfile"))
    throw InvalidArgument(
        "--hostfile does not go with --sweep: each size of the family has its own hosts");
  const std::optional<int> max_gpus = vm.count("sweep-max-gpus")
                                          ? std::optional<int>(vm["sweep-max-gpus"].as<int>())
                                          : std::nullopt;
  const bool described = is_description(platform_file);
  const std::vector<Member> members =
      described ? description_family(platform_file, max_gpus) : file_family(platform_file);
  if (members.empty())
    throw InvalidArgument("--sweep: no platform named like '" + platform_file + "' found");
  std::string sizes;
  for (const Member& m : members) sizes += (sizes.empty() ? "" : ", ") + m.name();
  const std::string where = (described ? "machine description " + platform_file +
                                             " generated (platforms/generate.py "
                                             "--nodes N) at "
                                       : "platform family of " + platform_file + ": ") +
                            sizes + ", one simulation process each";

  std::optional<harness::WorkloadReportWriter> report;
  std::optional<ComputeScaling> first;
  std::vector<std::string> notes;
  harness::Progress progress("ddlsim", members.size());
  for (const Member& member : members) {
    std::optional<PlatformSource> generated;
    if (member.nodes) generated.emplace(platform_file, member.nodes);
    const harness::WorkloadCsv csv = harness::parse_workload_csv(
        run_self(child_arguments(vm, common, a, generated ? generated->xml() : member.file),
                 member.name()),
        a.batch);
    progress.step(member.name());
    const ComputeScaling scaling = scaling_from_fields(csv.fields);
    if (!first) {
      // The header waits for the first size: how its compute was scaled is the child's to say.
      first = scaling;
      harness::IterationPlan plan = harness::plan_iteration(a.workload, a.batch, a.buckets);
      scale_compute(plan, scaling);
      info.add("platform", platform_file);
      add_workload_fields(info, a, scaling);
      info.header = workload_header(a, plan, a.effects, scaling, where);
      report.emplace(out, common.format, info, a.workload.sample);
    } else if (scaling.factor != first->factor) {
      notes.push_back("compute on " + member.name() + ": scaled x" +
                      std::to_string(scaling.factor) + " (a GPU of another speed)");
    }
    // No rows: this size is over --sweep-max-gpus, and so is every larger one.
    if (csv.rows.empty()) {
      notes.push_back("not run: " + member.name() + " and larger, over --sweep-max-gpus " +
                      std::to_string(max_gpus.value_or(0)) + " GPUs");
      break;
    }
    progress.end_line();
    for (const harness::WorkloadRow& r : csv.rows) report->add(r);
  }
  report->finish(notes);
  return 0;
}

}  // namespace ddl::sim
