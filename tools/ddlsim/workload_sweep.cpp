#include "tools/ddlsim/workload_sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "algorithms/error.hpp"
#include "harness/progress.hpp"
#include "sim/isolated.hpp"
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

// What a size's child sends back: how its compute was scaled, whether it ran, its rows.
std::string outcome_json(const WorkloadOutcome& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const harness::WorkloadRow& row : r.rows)
    rows.push_back({{"gpus", row.gpus},
                    {"algo", row.algo},
                    {"dims", row.dims},
                    {"batch", row.batch},
                    {"iteration_s", row.iteration_s},
                    {"compute_s", row.compute_s}});
  const nlohmann::json j = {{"scale", r.scaling.factor},
                            {"platform_flops", r.scaling.platform_flops},
                            {"scaling_off", r.scaling.off},
                            {"over_limit", r.over_limit},
                            {"rows", rows}};
  return j.dump();
}

WorkloadOutcome outcome_from_json(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  WorkloadOutcome r;
  r.scaling.factor = j.at("scale").get<double>();
  r.scaling.platform_flops = j.at("platform_flops").get<double>();
  r.scaling.off = j.at("scaling_off").get<bool>();
  r.over_limit = j.at("over_limit").get<bool>();
  for (const nlohmann::json& row : j.at("rows"))
    r.rows.push_back({row.at("gpus").get<int>(), row.at("algo").get<std::string>(),
                      row.at("dims").get<std::string>(), row.at("batch").get<std::size_t>(),
                      row.at("iteration_s").get<double>(), row.at("compute_s").get<double>()});
  return r;
}

}  // namespace

int run_workload_sweep(const po::variables_map& vm, WorkloadSetup setup,
                       const std::string& platform_file, harness::RunInfo info, std::ostream& out) {
  if (setup.common.dims)
    throw InvalidArgument(
        "--dims does not go with --sweep: each size runs on its own natural grid");
  if (!setup.common.methods.empty())
    throw InvalidArgument(
        "--methods does not go with --sweep: each size runs on its own natural grid");
  if (vm.count("hostfile"))
    throw InvalidArgument(
        "--hostfile does not go with --sweep: each size of the family has its own hosts");
  setup.platform = read_platform_flags(vm);
  const harness::WorkloadChoice& a = setup.choice;
  const bool described = is_description(platform_file);
  const std::vector<Member> members =
      described ? description_family(platform_file, setup.max_gpus) : file_family(platform_file);
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
    const std::string xml = generated ? generated->xml() : member.file;
    const WorkloadOutcome size = outcome_from_json(
        run_isolated({"the run on " + member.name(),
                      [&] { return outcome_json(simulate_workload(setup, xml, xml)); }},
                     kSweepSizeTimeoutSeconds));
    progress.step(member.name());
    if (!first) {
      // The header waits for the first size: how its compute was scaled is the child's to say.
      first = size.scaling;
      harness::IterationPlan plan = harness::plan_iteration(a.workload, a.batch, a.buckets);
      scale_compute(plan, size.scaling);
      info.add("platform", platform_file);
      add_workload_fields(info, a, size.scaling);
      info.header = workload_header(a, plan, a.effects, size.scaling, where);
      report.emplace(out, setup.common.format, info, a.workload.sample);
    } else if (size.scaling.factor != first->factor) {
      notes.push_back("compute on " + member.name() + ": scaled x" +
                      std::to_string(size.scaling.factor) + " (a GPU of another speed)");
    }
    // This size is over --sweep-max-gpus, and so is every larger one.
    if (size.over_limit) {
      notes.push_back("not run: " + member.name() + " and larger, over --sweep-max-gpus " +
                      std::to_string(setup.max_gpus.value_or(0)) + " GPUs");
      break;
    }
    progress.end_line();
    for (const harness::WorkloadRow& r : size.rows) report->add(r);
  }
  report->finish(notes);
  return 0;
}

}  // namespace ddl::sim
