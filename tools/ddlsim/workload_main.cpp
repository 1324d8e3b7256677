#include "tools/ddlsim/workload_main.hpp"

#include <charconv>
#include <cmath>
#include <iostream>
#include <optional>
#include <simgrid/s4u/Host.hpp>

#include "algorithms/error.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/workload_run.hpp"
#include "tools/ddlsim/platform_options.hpp"
#include "tools/ddlsim/workload_header.hpp"
#include "tools/ddlsim/workload_sweep.hpp"
#include "workloads/workload.hpp"
#include "workloads/workload_cli.hpp"
#include "workloads/workload_report.hpp"

namespace po = boost::program_options;

namespace ddl::sim {

namespace {

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

}  // namespace

void add_workload_options(po::options_description& desc) {
  harness::add_workload_options(desc);
  desc.add_options()("sweep", po::bool_switch(),
                     "--workload: every <family>_<N>.xml beside --platform, or a description "
                     "NAME.json at 1, 2, 4, ... nodes: one row per GPU count")(
      "sweep-max-gpus", po::value<int>(),
      "--workload: run no platform with more GPUs than this (--sweep stops at the first such "
      "size)")("no-compute-scaling", po::bool_switch(),
               "--workload: keep the workload's compute times as given for its reference GPU "
               "(default: scaled by its peak fp32 FLOP/s over the platform GPUs')");
}

bool workload_requested(const po::variables_map& vm) {
  return vm.count("workload") > 0;
}

int run_workload_mode(const po::variables_map& vm, const harness::CommonOptions& common,
                      const std::string& platform_file, const std::string& workloads_dir,
                      const char* program, const harness::RunInfo& base, std::ostream& out) {
  if (common.check)
    throw InvalidArgument("--check does not go with --workload: workload runs are timing-only");
  WorkloadSetup setup;
  setup.common = common;
  setup.choice = harness::read_workload_options(vm, workloads_dir);
  setup.no_compute_scaling = vm["no-compute-scaling"].as<bool>();
  setup.program = program;
  if (vm.count("sweep-max-gpus")) {
    const int max_gpus = vm["sweep-max-gpus"].as<int>();
    if (max_gpus < 1)
      throw InvalidArgument("--sweep-max-gpus must be at least 1, got " + std::to_string(max_gpus));
    setup.max_gpus = max_gpus;
  }
  if (vm["sweep"].as<bool>()) return run_workload_sweep(vm, setup, platform_file, base, out);

  setup.platform = read_platform_flags(vm);
  const PlatformSource source(platform_file);
  const WorkloadOutcome r = simulate_workload(setup, source.xml(), source.shown());
  const harness::WorkloadChoice& a = setup.choice;
  harness::RunInfo info = base;
  info.add("platform", r.platform);
  info.add("gpus", std::to_string(r.gpus));
  add_workload_fields(info, a, r.scaling);
  if (r.over_limit) {
    // The preamble and the csv header alone: the sweep reads "no rows" as "past the limit".
    info.header = {"platform " + r.platform + " has " + std::to_string(r.gpus) +
                   " GPUs, more than --sweep-max-gpus " + std::to_string(*setup.max_gpus) +
                   ": not run"};
    harness::write_workload_report(out, common.format, {}, info, a.workload.sample);
    return 0;
  }
  info.add("dims", r.dims);
  info.header = workload_header(
      a, r.plan, r.effects, r.scaling,
      "platform " + r.platform + ", " + std::to_string(r.gpus) + " GPUs, dims " + r.dims);
  harness::write_workload_report(out, common.format, r.rows, info, a.workload.sample, r.notes);
  return 0;
}

WorkloadOutcome simulate_workload(const WorkloadSetup& setup, const std::string& xml,
                                  const std::string& shown) {
  const harness::WorkloadChoice& a = setup.choice;
  simgrid::s4u::Engine& engine = start_engine(setup.program.c_str(), setup.platform.cfg);
  Platform platform = load_platform(engine, xml, setup.platform.choice);
  platform.file = shown;
  WorkloadOutcome r;
  r.platform = platform.file;
  r.gpus = platform.ranks();
  r.scaling = compute_scaling(a.workload, platform, setup.no_compute_scaling);
  if (setup.max_gpus && platform.ranks() > *setup.max_gpus) {
    r.over_limit = true;
    return r;
  }
  const Dims dims = choose_dims(platform, setup.common.dims);
  WorkloadRunConfig config;
  config.plan = harness::plan_iteration(a.workload, a.batch, a.buckets);
  scale_compute(config.plan, r.scaling);
  // As ddlsim's sweep: no direct.
  config.algos = harness::runnable_algorithms(setup.common, false, switch_levels(platform));
  require_shared_memory(platform, config.algos);
  require_in_switch(platform, config.algos);
  config.options = harness::algorithm_options(setup.common, dims);
  config.options.cost = platform_costs(platform, dims);
  config.effects = a.effects;
  config.dtype = a.dtype;
  if (!a.effects_off && !a.interference_flag)
    config.effects.interference = platform_interference(platform);
  config.iters = setup.common.iters;
  config.warmup = setup.common.warmup;
  r.dims = dims.to_string();
  r.plan = config.plan;
  r.effects = config.effects;
  // One simulation gives every row at its end (its progress is on stderr meanwhile).
  for (const WorkloadResult& w : run_workload(platform, config))
    r.rows.push_back({platform.ranks(), w.algo, r.dims, a.batch, w.iteration_s, w.compute_s});
  if (const std::string note = extrapolation_note(*platform.extrapolation); !note.empty())
    r.notes.push_back(note);
  return r;
}

}  // namespace ddl::sim
