// The workload flags ddlsim and ddlrun share: --workload, --batch, --bucket, --first-bucket,
// declared and validated once. Each tool adds its own (ddlsim --sweep, ddlrun --compute-scale).
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <string>

#include "harness/workload.hpp"

namespace ddl::harness {

struct WorkloadChoice {
  std::string file;  // the workload file (a known name resolved to workloads/NAME.csv)
  Workload workload;
  BucketOptions buckets;
  std::size_t batch = 0;  // images per GPU
};

void add_workload_options(boost::program_options::options_description& desc);
// Requires --workload in vm. A name ending in .csv is a workload file of its own (format:
// workloads/README.md), anything else a shipped model in `workloads_dir`. Throws
// InvalidArgument naming the flag for a bad bucket size, batch or workload.
WorkloadChoice read_workload_options(const boost::program_options::variables_map& vm,
                                     const std::string& workloads_dir);

}  // namespace ddl::harness
