// ddlsim --workload: simulated training iterations (sim/workload_run.hpp) on one platform, or on
// every size of a platform family with --sweep (tools/ddlsim/workload_sweep.hpp), reported by
// workloads/workload_report.hpp with the header of tools/ddlsim/workload_header.hpp (which GPU the
// compute times are for, and how they were scaled to the platform's).
#pragma once

#include <boost/program_options.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli.hpp"
#include "harness/run_info.hpp"
#include "tools/ddlsim/platform_options.hpp"
#include "tools/ddlsim/workload_header.hpp"
#include "workloads/workload_cli.hpp"
#include "workloads/workload_report.hpp"

namespace ddl::sim {

// --workload, --batch, --bucket, --first-bucket, --sweep, --sweep-max-gpus, --no-compute-scaling.
void add_workload_options(boost::program_options::options_description& desc);
bool workload_requested(const boost::program_options::variables_map& vm);

// `platform_file` is the resolved --platform; `workloads_dir` holds the shipped workload files;
// `info` the report's first fields (harness::run_info); the report goes to `out`.
int run_workload_mode(const boost::program_options::variables_map& vm,
                      const harness::CommonOptions& common, const std::string& platform_file,
                      const std::string& workloads_dir, const char* program,
                      const harness::RunInfo& info, std::ostream& out);

// A --workload run's flags, parsed once: what every platform of a sweep runs with.
struct WorkloadSetup {
  harness::CommonOptions common;
  harness::WorkloadChoice choice;
  PlatformFlags platform;  // --hostfile, --memory-bandwidth, --exact, --cfg
  bool no_compute_scaling = false;
  std::optional<int> max_gpus;  // --sweep-max-gpus
  std::string program;          // argv[0], SimGrid's name for the process
};

// One platform's run, before it is reported.
struct WorkloadOutcome {
  std::string platform;  // as reports name it
  int gpus = 0;
  ComputeScaling scaling;
  bool over_limit = false;  // more GPUs than --sweep-max-gpus: nothing run, nothing below set
  std::string dims;
  harness::IterationPlan plan;       // its compute scaled
  harness::TrainingEffects effects;  // the platform's interference filled in
  std::vector<harness::WorkloadRow> rows;
  std::vector<std::string> notes;  // step extrapolation's
};

// Simulates `setup` on the SimGrid file `xml`, called `shown`. Starts the process's engine: once
// per process (--sweep runs each platform in a child of its own, sim/isolated.hpp).
WorkloadOutcome simulate_workload(const WorkloadSetup& setup, const std::string& xml,
                                  const std::string& shown);

}  // namespace ddl::sim
