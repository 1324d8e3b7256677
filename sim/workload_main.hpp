// ddlsim --workload: simulated training iterations (sim/workload_run.hpp) on one platform, or on
// every size of a platform family with --sweep, reported by harness/workload_report.hpp.
//
// --sweep: the family is read from the --platform file name, <family>_<N>.xml, as every
// <family>_<N>.xml in the same folder (s822lc_64.xml -> s822lc_1.xml ... s822lc_256.xml), in
// increasing N. SimGrid allows one Engine per process, so each size runs in a child process:
// ddlsim re-executes itself (/proc/self/exe) with that platform, the same workload flags and
// --format csv, and the rows of each child's csv are gathered and printed in the requested
// format. A child's error message reaches stderr directly and stops the sweep. --dims and
// --methods are refused with --sweep (each size runs on its own natural grid).
// --sweep-max-gpus N: a platform with more than N GPUs runs nothing (its csv has the header
// only), and the sweep stops at the first such size (the family grows with N).
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "harness/cli.hpp"

namespace ddl::sim {

// --workload, --batch, --bucket, --first-bucket, --sweep, --sweep-max-gpus.
void add_workload_options(boost::program_options::options_description& desc);
bool workload_requested(const boost::program_options::variables_map& vm);

// `platform_file` is the resolved --platform; `workloads_dir` holds the shipped workload files.
int run_workload_mode(const boost::program_options::variables_map& vm,
                      const harness::CommonOptions& common, const std::string& platform_file,
                      const std::string& workloads_dir, const char* program);

}  // namespace ddl::sim
