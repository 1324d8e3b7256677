// ddlsim --workload: simulated training iterations (sim/workload_run.hpp) on one platform, or on
// every size of a platform family with --sweep (tools/ddlsim/workload_sweep.hpp), reported by
// workloads/workload_report.hpp with the header of tools/ddlsim/workload_header.hpp (which GPU the
// compute times are for, and how they were scaled to the platform's).
#pragma once

#include <boost/program_options.hpp>
#include <iosfwd>
#include <string>

#include "harness/cli.hpp"
#include "harness/run_info.hpp"

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

}  // namespace ddl::sim
